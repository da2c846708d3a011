/** Parsers for the RESP2 replies of FT.SEARCH and FT.AGGREGATE as node-redis returns them from sendCommand. */

export interface SearchRow {
  key: string;
  score: number | null;
  fields: ReadonlyMap<string, string>;
}

/** The fields of every NOCONTENT row (a BM25 read may hold hundreds). */
const NO_FIELDS: ReadonlyMap<string, string> = new Map();

export interface SearchReply {
  total: number;
  rows: SearchRow[];
}

/**
 * `[total, key, (score,) [field, value, …], …]`; with NOCONTENT `[total, key, (score,) …]` (no
 * fields); with LIMIT 0 0 just `[total]`.
 */
export function parseSearch(reply: unknown, { withScores = false, noContent = false } = {}): SearchReply {
  const list = reply as unknown[];
  const total = Number(list[0]);
  const rows: SearchRow[] = [];
  const step = 1 + (withScores ? 1 : 0) + (noContent ? 0 : 1);
  for (let i = 1; i + step - 1 < list.length; i += step) {
    const key = String(list[i]);
    const score = withScores ? Number(list[i + 1]) : null;
    const fields = noContent ? NO_FIELDS : pairs((list[i + step - 1] ?? []) as unknown[]);
    rows.push({ key, score, fields });
  }
  return { total, rows };
}

/** `[count, [field, value, …], …]` → one map per row. */
export function parseAggregate(reply: unknown): Map<string, string>[] {
  return (reply as unknown[]).slice(1).map((row) => pairs(row as unknown[]));
}

function pairs(flat: unknown[]): Map<string, string> {
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) map.set(String(flat[i]), String(flat[i + 1]));
  return map;
}

/** A RETURNed JSONPath object or array value: DIALECT 2 gives the first match as JSON text (string scalars come raw). */
export function jsonField<T>(row: SearchRow, name: string): T {
  const text = row.fields.get(name);
  if (text === undefined) throw new Error(`search reply for ${row.key} lacks ${name}`);
  return JSON.parse(text) as T;
}
