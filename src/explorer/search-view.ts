import { api } from "./api";
import { field, h, replace, valueOf } from "./dom";
import { memoryRow } from "./memory-row";
import { attempt } from "./notice";
import { signalBars } from "./signal-bars";
import type { FreeTierStatus, RecallHit, SearchHit } from "./types";

/** Keyword search (BM25, free) and recall (hybrid, paid: uses the wallet's free calls) over the same form. */
export function renderSearch(root: HTMLElement): void {
  const results = h("div", { id: "search-results", "aria-live": "polite" });
  const freeCalls = h("span", { id: "free-calls" }, "");
  const form = h(
    "form",
    { class: "filters search-form", "aria-label": "Search memories", onsubmit: (e: Event) => e.preventDefault() },
    field("Query", h("input", { name: "query", id: "search-query", required: true, type: "search", maxlength: 1000 })),
    field("Namespace", h("input", { name: "namespace", list: "namespaces" })),
    field("Results", h("input", { name: "limit", type: "number", min: 1, max: 100, value: 10 })),
    h("button", { type: "submit", id: "search-button", onclick: (e: Event) => submit(e, "search") }, "Keyword search"),
    h("button", { type: "submit", id: "recall-button", class: "paid", onclick: (e: Event) => submit(e, "recall") }, "Recall (paid)"),
  );
  const submit = async (event: Event, kind: "search" | "recall") => {
    event.preventDefault();
    if (!form.reportValidity()) return;
    const body = { query: valueOf(form, "query")!, namespace: valueOf(form, "namespace"), limit: Number(valueOf(form, "limit") ?? 10) };
    if (kind === "search") {
      const found = await attempt(() => api<{ memories: SearchHit[]; total: number }>("POST", "/v1/search", body));
      if (found) show(results, `${found.total} keyword matches`, found.memories.map((m) => memoryRow(m)));
    } else {
      const found = await attempt(() => api<{ memories: RecallHit[] }>("POST", "/v1/recall", body));
      if (found) show(results, `${found.memories.length} recalled`, found.memories.map((m) => memoryRow(m, h("div", { class: "recall-extra" }, h("span", { class: "score" }, `score ${m.similarity.toFixed(3)}`), signalBars(m)))));
      void refreshFreeCalls(freeCalls);
    }
  };
  replace(
    root,
    h(
      "section",
      { "aria-labelledby": "search-title" },
      h("h2", { id: "search-title" }, "Search and recall"),
      h(
        "p",
        { class: "muted" },
        "Keyword search (BM25) is free. Recall ranks by meaning, keywords, recency and importance and is a paid endpoint: each recall uses one of this wallet's free calls, then x402 payment. ",
        freeCalls,
      ),
      form,
      results,
    ),
  );
  void refreshFreeCalls(freeCalls);
  (form.elements.namedItem("query") as HTMLInputElement).focus();
}

function show(results: HTMLElement, heading: string, rows: HTMLElement[]): void {
  replace(results, h("p", { class: "count", id: "search-count" }, heading), rows.length ? h("ol", { class: "memories" }, rows) : h("p", { class: "muted" }, "Nothing found."));
}

async function refreshFreeCalls(el: HTMLElement): Promise<void> {
  try {
    const s = await api<FreeTierStatus>("GET", "/v1/free-tier/status");
    el.textContent = `Free calls left: ${s.free_tier_remaining} of ${s.free_tier_total}.`;
  } catch {}
}
