import { api } from "./api";
import { colorOfRelation, colorOfType } from "./colors";
import { excerpt, field, h, replace, shortDate, valueOf } from "./dom";
import { attempt, notify } from "./notice";
import { MEMORY_TYPES, RELATION_TYPES, type HistoryEntry, type ListedRelation, type Memory } from "./types";

/** A history entry's changed fields as `field: old → new` (the new values alone for entries without a snapshot). */
function changeLines(entry: HistoryEntry): HTMLElement[] {
  const show = (value: unknown) => (value === undefined ? "∅" : JSON.stringify(value));
  return Object.entries(entry.changes).map(([field, value]) =>
    h("code", { class: "change" }, entry.before ? `${field}: ${show(entry.before[field])} → ${show(value)}` : `${field}: ${show(value)}`),
  );
}

/** One memory: its fields, edit/pin/delete, its relations (and adding one), its change history. */
export async function renderDetail(root: HTMLElement, id: string): Promise<void> {
  const loaded = await attempt(() =>
    Promise.all([
      api<Memory>("GET", `/v1/memories/${id}`),
      api<{ relations: ListedRelation[] }>("GET", `/v1/memories/${id}/relations`),
      api<{ history: HistoryEntry[] }>("GET", `/v1/memories/${id}/history`),
    ]),
  );
  if (!loaded) return replace(root, h("p", {}, h("a", { href: "#/memories" }, "← Back to the list")));
  const [m, { relations }, { history }] = loaded;
  const reload = () => renderDetail(root, id);

  const edit = h(
    "form",
    {
      class: "stack edit",
      "aria-label": "Edit memory",
      onsubmit: async (event: Event) => {
        event.preventDefault();
        const tags = (valueOf(edit, "tags") ?? "").split(",").map((t) => t.trim()).filter(Boolean);
        const patch = {
          content: valueOf(edit, "content"),
          importance: Number(valueOf(edit, "importance")),
          memory_type: valueOf(edit, "memory_type"),
          namespace: valueOf(edit, "namespace"),
          tags,
        };
        if (await attempt(() => api("PATCH", `/v1/memories/${id}`, patch))) {
          await reload();
          notify("Saved.");
        }
      },
    },
    field("Content", h("textarea", { name: "content", rows: 4, required: true, maxlength: 8192, disabled: m.immutable }, m.content)),
    h(
      "div",
      { class: "row" },
      field("Importance", h("input", { name: "importance", type: "number", min: 0, max: 1, step: 0.05, value: m.importance, disabled: m.immutable })),
      field("Type", h("select", { name: "memory_type", disabled: m.immutable }, MEMORY_TYPES.map((t) => h("option", { value: t, selected: t === m.memory_type }, t)))),
      field("Namespace", h("input", { name: "namespace", value: m.namespace, required: true, maxlength: 255, disabled: m.immutable })),
      field("Tags", h("input", { name: "tags", value: m.tags.join(", "), disabled: m.immutable })),
    ),
    h("button", { type: "submit", disabled: m.immutable }, "Save changes"),
  );

  const actions = h(
    "div",
    { class: "actions" },
    h(
      "button",
      {
        type: "button",
        id: "pin-button",
        "aria-pressed": String(m.pinned),
        onclick: async () => {
          if (await attempt(() => api("PATCH", `/v1/memories/${id}`, { pinned: !m.pinned }))) await reload();
        },
      },
      m.pinned ? "Unpin" : "Pin",
    ),
    h("a", { class: "button", href: `#/graph?memory_id=${id}` }, "Graph around it"),
    h(
      "button",
      {
        type: "button",
        class: "danger",
        id: "delete-button",
        disabled: m.immutable,
        onclick: async () => {
          if (!confirm("Delete this memory? It is soft-deleted: gone from lists, search and recall.")) return;
          if (await attempt(() => api("DELETE", `/v1/memories/${id}`))) {
            notify("Memory deleted.");
            location.hash = "#/memories";
          }
        },
      },
      "Delete",
    ),
  );

  const relate = h(
    "form",
    {
      class: "row",
      "aria-label": "Add a relation",
      onsubmit: async (event: Event) => {
        event.preventDefault();
        const body = { target_id: valueOf(relate, "target_id"), relation_type: valueOf(relate, "relation_type") };
        if (await attempt(() => api("POST", `/v1/memories/${id}/relations`, body))) await reload();
      },
    },
    field("Target memory id", h("input", { name: "target_id", required: true, pattern: "[0-9a-fA-F-]{36}", size: 38 })),
    field("Relation", h("select", { name: "relation_type" }, RELATION_TYPES.map((t) => h("option", { value: t }, t)))),
    h("button", { type: "submit" }, "Relate"),
  );

  replace(
    root,
    h(
      "article",
      { class: "detail", "aria-labelledby": "detail-title", "data-id": id },
      h("p", {}, h("a", { href: "#/memories" }, "← Back"), h("span", { class: "muted" }, "  (Escape)")),
      h("h2", { id: "detail-title" }, excerpt(m.content, 80), m.pinned ? h("span", { class: "pinned" }, "pinned") : null),
      h(
        "dl",
        { class: "facts" },
        fact("id", h("code", {}, m.id)),
        fact("type", h("span", { class: "chip", style: `--chip:${colorOfType(m.memory_type)}` }, m.memory_type)),
        fact("namespace", m.namespace),
        fact("session / agent", `${m.session_id ?? "—"} / ${m.agent_id ?? "—"}`),
        fact("created", shortDate(m.created_at)),
        fact("updated", shortDate(m.updated_at)),
        fact("recalled", `${m.access_count} times, last ${shortDate(m.accessed_at)}`),
        fact("flags", [m.pinned ? "pinned" : "not pinned", m.immutable ? "immutable" : null, m.expires_at ? `expires ${shortDate(m.expires_at)}` : null].filter(Boolean).join(", ")),
        Object.keys(m.metadata).length ? fact("metadata", h("code", {}, JSON.stringify(m.metadata))) : null,
      ),
      actions,
      h("h3", {}, "Edit"),
      edit,
      h("h3", {}, `Relations (${relations.length})`),
      relations.length
        ? h(
            "ul",
            { class: "relations" },
            relations.map((r) =>
              h(
                "li",
                {},
                h("span", { class: "edge", style: `--edge:${colorOfRelation(r.relation_type)}` }, r.direction === "outgoing" ? `${r.relation_type} →` : `← ${r.relation_type}`),
                " ",
                h("a", { href: `#/memory/${r.memory.id}` }, excerpt(r.memory.content, 120)),
                " ",
                h(
                  "button",
                  {
                    type: "button",
                    class: "small",
                    "aria-label": `Remove relation ${r.relation_type}`,
                    onclick: async () => {
                      if (await attempt(() => api("DELETE", `/v1/memories/${id}/relations/${r.id}`))) await reload();
                    },
                  },
                  "✕",
                ),
              ),
            ),
          )
        : h("p", { class: "muted" }, "No relations."),
      relate,
      h("h3", {}, `History (${history.length})`),
      history.length
        ? h("ol", { class: "history" }, history.map((e) => h("li", {}, h("time", { datetime: e.created_at }, shortDate(e.created_at)), " ", ...changeLines(e))))
        : h("p", { class: "muted" }, "Never edited."),
    ),
  );
  (root.querySelector("#pin-button") as HTMLElement | null)?.focus();
}

const fact = (name: string, value: Node | string) => [h("dt", {}, name), h("dd", {}, value)];
