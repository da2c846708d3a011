/** Reading GET /metrics in tests: scraped over HTTP, parsed by a Prometheus text-format parser. */
import { expect } from "bun:test";
import { getMetricsFromIterator, type PromData, type PromHistogramData, type PromMetrics } from "prom2javascript";

/** One scrape of /metrics, read by a Prometheus text-format parser (which throws on a malformed line). */
export async function scrape(url: string, headers: Record<string, string> = {}): Promise<PromMetrics> {
  const res = await fetch(`${url}/metrics`, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
  return getMetricsFromIterator((await res.text()).split("\n")[Symbol.iterator]());
}

const matches = (labels: Record<string, string>, wanted: Record<string, string>) => Object.entries(wanted).every(([k, v]) => labels[k] === v);

/** A counter's or gauge's value summed over the series with these labels (0 when there is none yet). */
export function value(metrics: PromMetrics, name: string, labels: Record<string, string> = {}): number {
  const family = metrics[name];
  expect([name, family?.type === "counter" || family?.type === "gauge"]).toEqual([name, true]);
  return (family!.data as PromData[]).filter((d) => matches(d.labels, labels)).reduce((sum, d) => sum + d.value, 0);
}

/** A histogram's observation count (or sum) over the series with these labels. */
export function observed(metrics: PromMetrics, name: string, labels: Record<string, string> = {}, field: "count" | "sum" = "count"): number {
  const family = metrics[name];
  expect([name, family?.type]).toEqual([name, "histogram"]);
  return (family!.data as PromHistogramData[]).filter((d) => matches(d.labels, labels)).reduce((sum, d) => sum + (d[field] ?? 0), 0);
}
