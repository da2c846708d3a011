import cytoscape from "cytoscape";
import { api, query } from "./api";
import { colorOfRelation, colorOfType, RELATION_COLORS, TYPE_COLORS } from "./colors";
import { excerpt, field, h, replace, valueOf } from "./dom";
import { attempt } from "./notice";
import type { Graph } from "./types";

let current: cytoscape.Core | null = null;

/** The relation graph around one memory, of a namespace or of every namespace (the default): at most max_nodes, laid out by cytoscape. */
export function renderGraph(root: HTMLElement, params: URLSearchParams): void {
  const memoryId = params.get("memory_id") ?? "";
  const canvas = h("div", { id: "graph", class: "graph", role: "img", "aria-label": "Relation graph" });
  const summary = h("p", { class: "count", id: "graph-count", "aria-live": "polite" }, "");
  const form = h(
    "form",
    {
      class: "filters",
      "aria-label": "Graph scope",
      onsubmit: (event: Event) => {
        event.preventDefault();
        const q = query({ namespace: valueOf(form, "namespace"), memory_id: valueOf(form, "memory_id"), depth: valueOf(form, "depth"), max_nodes: valueOf(form, "max_nodes") });
        location.hash = `#/graph${q}`;
      },
    },
    field("Namespace", h("input", { name: "namespace", value: params.get("namespace") ?? "", list: "namespaces", placeholder: "all namespaces" })),
    field("or around memory id", h("input", { name: "memory_id", value: memoryId, size: 38 })),
    field("Depth", h("input", { name: "depth", type: "number", min: 1, max: 3, value: params.get("depth") ?? 2 })),
    field("Max nodes", h("input", { name: "max_nodes", type: "number", min: 1, max: 500, value: params.get("max_nodes") ?? 150 })),
    h("button", { type: "submit" }, "Draw"),
  );
  const legend = h(
    "ul",
    { class: "legend", "aria-label": "Colours: memory types (dots) and relation types (lines)" },
    Object.entries(TYPE_COLORS).map(([type, color]) => h("li", {}, h("span", { class: "dot", style: `background:${color}` }), type)),
    Object.entries(RELATION_COLORS).map(([type, color]) => h("li", {}, h("span", { class: "swatch", style: `background:${color}` }), type)),
  );
  replace(
    root,
    h(
      "section",
      { "aria-labelledby": "graph-title" },
      h("h2", { id: "graph-title" }, "Relation graph"),
      form,
      legend,
      summary,
      canvas,
      h("p", { class: "muted" }, "Click (or tap) a memory to open it. Scroll to zoom, drag to pan."),
    ),
  );
  void draw(canvas, summary, params);
}

async function draw(container: HTMLElement, summary: HTMLElement, params: URLSearchParams): Promise<void> {
  const memoryId = params.get("memory_id") || undefined;
  const namespace = memoryId ? undefined : params.get("namespace") || undefined; // none: every namespace
  const graph = await attempt(() =>
    api<Graph>("GET", `/v1/graph${query({ memory_id: memoryId, namespace, depth: params.get("depth") ?? 2, max_nodes: params.get("max_nodes") ?? 150 })}`),
  );
  if (!graph) return;
  current?.destroy();
  const ids = new Set(graph.nodes.map((n) => n.id));
  current = cytoscape({
    container,
    elements: [
      ...graph.nodes.map((n) => ({
        data: { id: n.id, label: excerpt(n.content, 40), color: colorOfType(n.memory_type), size: 18 + n.importance * 22, start: n.id === memoryId ? 1 : 0 },
      })),
      ...graph.edges
        .filter((e) => ids.has(e.source_id) && ids.has(e.target_id))
        .map((e) => ({ data: { id: e.id, source: e.source_id, target: e.target_id, label: e.relation_type, color: colorOfRelation(e.relation_type) } })),
    ],
    style: [
      {
        selector: "node",
        style: {
          "background-color": "data(color)",
          label: "data(label)",
          width: "data(size)",
          height: "data(size)",
          "font-size": 10,
          color: "#1d2433",
          "text-wrap": "ellipsis",
          "text-max-width": "140px",
          "text-valign": "bottom",
          "text-margin-y": 3,
          "text-background-color": "#ffffff",
          "text-background-opacity": 0.8,
          "text-background-padding": "2px",
        },
      },
      { selector: "node[start = 1]", style: { "border-width": 3, "border-color": "#1d2433" } },
      {
        selector: "edge",
        style: {
          "line-color": "data(color)",
          "target-arrow-color": "data(color)",
          "target-arrow-shape": "triangle",
          "curve-style": "bezier",
          width: 2,
          label: "data(label)",
          "font-size": 8,
          color: "#555",
          "text-rotation": "autorotate",
        },
      },
    ],
    layout: (graph.nodes.length > 200
      ? { name: "grid", padding: 40 }
      : { name: "cose", animate: false, padding: 40, randomize: true, idealEdgeLength: () => 110, nodeRepulsion: () => 400_000, nodeOverlap: 40, componentSpacing: 120, numIter: 1500 }) as cytoscape.LayoutOptions,
    wheelSensitivity: 0.3,
  });
  // a handful of nodes would otherwise be fitted at a huge zoom
  if (current.zoom() > 1.5) {
    current.zoom(1.5);
    current.center();
  }
  current.on("tap", "node", (event) => {
    location.hash = `#/memory/${event.target.id()}`;
  });
  container.dataset.nodes = String(current.nodes().length);
  container.dataset.edges = String(current.edges().length);
  summary.textContent = `${graph.nodes.length} memories, ${graph.edges.length} relations${graph.truncated ? " (stopped at max nodes: narrow the scope or raise the limit)" : ""}`;
}

/** Frees the canvas when the view changes. */
export function disposeGraph(): void {
  current?.destroy();
  current = null;
}
