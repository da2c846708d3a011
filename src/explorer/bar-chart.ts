const SVG = "http://www.w3.org/2000/svg";

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** A horizontal bar chart in SVG: one labelled bar per row, scaled to the largest value. */
export function barChart(title: string, rows: { label: string; value: number; color?: string }[]): SVGSVGElement {
  const rowHeight = 24;
  const labelWidth = 140;
  const width = 520;
  const max = Math.max(1, ...rows.map((r) => r.value));
  const chart = svg("svg", { viewBox: `0 0 ${width} ${Math.max(1, rows.length) * rowHeight + 4}`, role: "img", "aria-label": title, class: "chart" });
  chart.appendChild(svg("title", {}, title));
  rows.forEach((row, i) => {
    const y = i * rowHeight + 2;
    const barWidth = ((width - labelWidth - 60) * row.value) / max;
    chart.appendChild(svg("text", { x: labelWidth - 8, y: y + 15, "text-anchor": "end", class: "chart-label" }, row.label.length > 20 ? `${row.label.slice(0, 19)}…` : row.label));
    chart.appendChild(svg("rect", { x: labelWidth, y: y + 3, width: Math.max(1, barWidth), height: rowHeight - 8, rx: 3, fill: row.color ?? "#3b6ea5" }));
    chart.appendChild(svg("text", { x: labelWidth + barWidth + 6, y: y + 15, class: "chart-value" }, row.value.toLocaleString()));
  });
  return chart;
}
