import { api } from "./api";
import { barChart } from "./bar-chart";
import { colorOfType } from "./colors";
import { h, replace } from "./dom";
import { attempt } from "./notice";
import type { FreeTierStatus, Stats } from "./types";

/** Points on the growth chart: from the oldest memory to the newest. */
const GROWTH_POINTS = 12;

/**
 * Memories stored by each of GROWTH_POINTS dates spread from the oldest memory to the newest: the list's
 * `total` with `before` set to the date and `limit=1` (served from the wallet's cache, so a dozen
 * cheap calls instead of paging through every memory).
 */
async function growth(stats: Stats): Promise<{ label: string; value: number }[]> {
  if (!stats.oldest_memory || !stats.newest_memory) return [];
  const from = Date.parse(stats.oldest_memory);
  const to = Date.parse(stats.newest_memory) + 1;
  const steps = to - from < 60_000 ? 1 : GROWTH_POINTS;
  const dates = Array.from({ length: steps }, (_, i) => new Date(from + ((to - from) * (i + 1)) / steps));
  const totals = await Promise.all(dates.map((d) => api<{ total: number }>("GET", `/v1/memories?limit=1&before=${encodeURIComponent(d.toISOString())}`)));
  const span = to - from;
  return dates.map((d, i) => ({ label: span > 2 * 86_400_000 ? d.toLocaleDateString() : d.toLocaleTimeString(), value: totals[i]!.total }));
}

/** Counts, growth over time, memories per type and per namespace, and the wallet's free tier and payment status. */
export async function renderStats(root: HTMLElement): Promise<void> {
  const loaded = await attempt(() =>
    Promise.all([
      api<Stats>("GET", "/v1/stats"),
      api<FreeTierStatus>("GET", "/v1/free-tier/status"),
      api<{ after_free_tier: { payment: string; note: string } }>("GET", "/v1/free-tier/info"),
    ]),
  );
  if (!loaded) return;
  const [stats, free, info] = loaded;
  const grown = await attempt(() => growth(stats));
  if (!grown) return;
  const namespaces = [...stats.by_namespace].sort((a, b) => b.count - a.count);
  const shownNamespaces = namespaces.slice(0, 15);
  const used = free.free_tier_total ? free.free_tier_used / free.free_tier_total : 0;
  replace(
    root,
    h(
      "section",
      { "aria-labelledby": "stats-title", class: "stats" },
      h("h2", { id: "stats-title" }, "Stats"),
      h(
        "dl",
        { class: "numbers" },
        number("memories", stats.total_memories.toLocaleString()),
        number("pinned", stats.pinned_count.toLocaleString()),
        number("never recalled", stats.never_accessed.toLocaleString()),
        number("recalls", stats.total_accesses.toLocaleString()),
        number("mean importance", stats.avg_importance.toFixed(2)),
        number("oldest", stats.oldest_memory ? new Date(stats.oldest_memory).toLocaleDateString() : "—"),
        number("newest", stats.newest_memory ? new Date(stats.newest_memory).toLocaleDateString() : "—"),
      ),
      h("h3", {}, "Growth (memories stored by each date)"),
      barChart("Memories stored over time", grown),
      h("h3", {}, "By type"),
      barChart("Memories by type", stats.by_type.map((t) => ({ label: t.memory_type, value: t.count, color: colorOfType(t.memory_type) }))),
      h("h3", {}, `By namespace${namespaces.length > shownNamespaces.length ? ` (largest ${shownNamespaces.length} of ${namespaces.length})` : ""}`),
      barChart("Memories by namespace", shownNamespaces.map((n) => ({ label: n.namespace, value: n.count }))),
      h("h3", {}, "Free tier and payment"),
      h(
        "div",
        { class: "free-tier", id: "free-tier" },
        h("p", {}, `${free.free_tier_remaining} of ${free.free_tier_total} free calls left (${free.free_tier_used} used) for wallet `, h("code", {}, free.wallet), "."),
        h("progress", { max: 1, value: used, "aria-label": "Free calls used" }),
        h("p", { class: "muted" }, `After the free calls: ${info.after_free_tier.payment}. ${info.after_free_tier.note}`),
      ),
    ),
  );
}

const number = (name: string, value: string) => h("div", {}, h("dt", {}, name), h("dd", {}, value));
