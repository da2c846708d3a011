import { t, type Static } from "elysia";
import { MemoryType } from "./memory";

export const Stats = t.Object({
  total_memories: t.Integer(),
  pinned_count: t.Integer(),
  never_accessed: t.Integer(),
  total_accesses: t.Integer(),
  avg_importance: t.Number(),
  oldest_memory: t.Union([t.String({ format: "date-time" }), t.Null()]),
  newest_memory: t.Union([t.String({ format: "date-time" }), t.Null()]),
  by_type: t.Array(t.Object({ memory_type: MemoryType, count: t.Integer() })),
  by_namespace: t.Array(t.Object({ namespace: t.String(), count: t.Integer() })),
});
export type Stats = Static<typeof Stats>;
