import { colorOfType } from "./colors";
import { excerpt, h, shortDate } from "./dom";

/** One memory in a list: its text as a link to the detail view, then type, namespace, tags, date. */
export function memoryRow(m: { id: string; content: string; memory_type: string; namespace: string; tags: string[]; created_at: string; importance: number; pinned?: boolean }, extra?: Node) {
  return h(
    "li",
    { class: "memory-row", "data-id": m.id },
    h("a", { href: `#/memory/${m.id}`, class: "memory-link" }, excerpt(m.content, 220)),
    h(
      "div",
      { class: "meta" },
      h("span", { class: "chip", style: `--chip:${colorOfType(m.memory_type)}` }, m.memory_type),
      m.pinned ? h("span", { class: "pinned" }, "pinned") : null,
      h("span", { class: "ns" }, m.namespace),
      m.tags.map((tag) => h("span", { class: "tag" }, `#${tag}`)),
      h("span", { class: "muted" }, `importance ${m.importance.toFixed(2)}`),
      h("time", { datetime: m.created_at, class: "muted" }, shortDate(m.created_at)),
    ),
    extra ?? null,
  );
}
