import { h } from "./dom";
import type { RecallHit } from "./types";

/** The `_signals` of a recall result as bars from 0 to 1 (access: its boost, 1 + 0.1 per access up to 2, shown as 0..1). */
export function signalBars(hit: RecallHit): HTMLElement {
  const s = hit._signals;
  const bars: [string, number, string][] = [
    ["vector", s.vector, "semantic similarity to the query"],
    ["keyword", s.keyword, "BM25 relative to the best keyword match"],
    ["recency", s.recency, "exp(−age/30 days)"],
    ["importance", s.effective_importance, "importance after pinning and decay"],
    ["decay", s.type_decay, "the memory type's decay factor"],
    ["access", Math.min(hit.access_count * 0.1, 1), `${hit.access_count} earlier recalls`],
  ];
  return h(
    "dl",
    { class: "signals", "aria-label": "Recall signals" },
    bars.map(([name, value, title]) => {
      const v = Math.max(0, Math.min(1, Number.isFinite(value) ? value : 0));
      return h(
        "div",
        { class: "signal", title },
        h("dt", {}, name),
        h("dd", {}, h("span", { class: `bar bar-${name}`, style: `width:${(v * 100).toFixed(1)}%` }), h("span", { class: "value" }, value.toFixed(2))),
      );
    }),
  );
}
