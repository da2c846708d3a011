import type { Commands, RedisNodes } from "./nodes";

/** Keys per SCAN page of a whole-store walk. */
export const WALK_PAGE = 1000;

/** Keys matching `pattern` (of `type`) on one node, a non-empty SCAN page at a time (a key may come twice). */
export async function* scanNode(node: Commands, pattern: string, type?: string): AsyncIterable<string[]> {
  let cursor = "0";
  do {
    const [next, found] = (await node.sendCommand([
      "SCAN", cursor, "MATCH", pattern, "COUNT", String(WALK_PAGE), ...(type ? ["TYPE", type] : []),
    ])) as [string, string[]];
    cursor = next;
    if (found.length > 0) yield found;
  } while (cursor !== "0");
}

/** `scanNode` on every master: a cluster spreads the keys over them. */
export async function* scanMasters(nodes: RedisNodes, pattern: string, type?: string): AsyncIterable<string[]> {
  for (const master of await nodes.masters()) yield* scanNode(master.commands, pattern, type);
}

/** Items by a key, in first-seen order. */
export function groupBy<T>(items: Iterable<T>, keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}
