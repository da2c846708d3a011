/** Shared helpers for the benchmark scripts: percentiles, a markdown table, deterministic text. */

export function percentiles(samples: number[]): { p50: number; p95: number; p99: number; mean: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), mean: sorted.reduce((a, b) => a + b, 0) / sorted.length };
}

export function printTable(header: string[], rows: string[][]): void {
  console.log(`| ${header.join(" | ")} |`);
  console.log(`|${header.map(() => "---").join("|")}|`);
  for (const row of rows) console.log(`| ${row.join(" | ")} |`);
}

const SUBJECTS = ["The user", "The team", "The project", "Our API", "The billing service", "The mobile app", "The data pipeline", "The CI job"];
const VERBS = ["prefers", "uses", "depends on", "was migrated to", "should avoid", "is deployed with", "needs", "reports errors from"];
const OBJECTS = ["Postgres 16", "dark mode", "tabs for indentation", "Kubernetes", "weekly releases", "TypeScript strict mode", "Redis caching", "the EU region", "GraphQL", "feature flags", "Bun", "Terraform"];
const TAILS = ["since March", "for the dashboard", "in production", "after the outage", "on Fridays", "for new customers", "because of latency", ""];

/** A deterministic, varied sentence for index i. */
export function sentence(i: number): string {
  const pick = <T>(xs: T[], k: number) => xs[(Math.imul(i + 1, k) >>> 0) % xs.length]!;
  return `${pick(SUBJECTS, 2654435761)} ${pick(VERBS, 40503)} ${pick(OBJECTS, 9973)} ${pick(TAILS, 7919)} (#${i})`.replace(/\s+/g, " ");
}
