import { api, query } from "./api";
import { field, h, replace, valueOf } from "./dom";
import { memoryRow } from "./memory-row";
import { attempt } from "./notice";
import { MEMORY_TYPES, type MemoryPage } from "./types";

const PAGE = 50;

/** Filters and page of the list, kept while the tab is open so going back returns to the same page. */
const state: { filters: Record<string, string | undefined>; offset: number } = { filters: {}, offset: 0 };

/** The memories list: filters (namespace, type, tags, session, agent, pinned) and pages of 50, newest first. */
export function renderList(root: HTMLElement): void {
  const results = h("div", { id: "list-results", "aria-live": "polite" });
  const f = state.filters;
  const form = h(
    "form",
    {
      class: "filters",
      "aria-label": "Filter memories",
      onsubmit: (event: Event) => {
        event.preventDefault();
        state.filters = Object.fromEntries(["namespace", "memory_type", "tags", "session_id", "agent_id", "pinned"].map((name) => [name, valueOf(form, name)]));
        state.offset = 0;
        void load(results);
      },
    },
    field("Namespace", h("input", { name: "namespace", value: f.namespace ?? "", list: "namespaces" })),
    field("Type", h("select", { name: "memory_type" }, h("option", { value: "" }, "any"), MEMORY_TYPES.map((t) => h("option", { value: t, selected: f.memory_type === t }, t)))),
    field("Tags", h("input", { name: "tags", value: f.tags ?? "", placeholder: "a,b (all of them)" })),
    field("Session", h("input", { name: "session_id", value: f.session_id ?? "" })),
    field("Agent", h("input", { name: "agent_id", value: f.agent_id ?? "" })),
    field(
      "Pinned",
      h("select", { name: "pinned" }, h("option", { value: "" }, "any"), h("option", { value: "true", selected: f.pinned === "true" }, "pinned"), h("option", { value: "false", selected: f.pinned === "false" }, "not pinned")),
    ),
    h("button", { type: "submit" }, "Apply"),
  );
  replace(root, h("section", { "aria-labelledby": "list-title" }, h("h2", { id: "list-title" }, "Memories"), form, results));
  void load(results);
}

async function load(results: HTMLElement): Promise<void> {
  const page = await attempt(() => api<MemoryPage>("GET", `/v1/memories${query({ ...state.filters, limit: PAGE, offset: state.offset })}`));
  if (!page) return;
  const first = page.total === 0 ? 0 : page.offset + 1;
  const last = page.offset + page.memories.length;
  const go = (offset: number) => () => {
    state.offset = offset;
    void load(results);
  };
  replace(
    results,
    h("p", { class: "count", id: "list-count" }, `${first}–${last} of ${page.total.toLocaleString()} memories`),
    page.memories.length ? h("ol", { class: "memories" }, page.memories.map((m) => memoryRow(m))) : h("p", { class: "muted" }, "No memories match."),
    h(
      "nav",
      { class: "pager", "aria-label": "Pages" },
      h("button", { type: "button", disabled: page.offset === 0, onclick: go(Math.max(0, page.offset - PAGE)) }, "← Newer"),
      h("button", { type: "button", disabled: last >= page.total, onclick: go(page.offset + PAGE) }, "Older →"),
    ),
  );
}
