import { t, type Static } from "elysia";
import { Uuid } from "./memory";

/** One PATCH of a memory: the fields that changed, with their new values. */
export const HistoryEntry = t.Object({
  id: Uuid,
  memory_id: Uuid,
  changes: t.Record(t.String(), t.Unknown()),
  created_at: t.String({ format: "date-time" }),
});
export type HistoryEntry = Static<typeof HistoryEntry>;
