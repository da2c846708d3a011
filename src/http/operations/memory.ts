import { t, type Static } from "elysia";
import { Lineage } from "../../domain/supersession";
import type { AppDeps } from "../deps";
import { ListedMemory, memoryView } from "../present";

/** One memory with what replaced it and what it replaced: GET /v1/memories/{id} and the MCP `get` tool. */
export const MemoryReply = t.Composite([ListedMemory, Lineage]);

export async function memoryAnswer(deps: AppDeps, userId: string, id: string): Promise<Static<typeof MemoryReply>> {
  const memory = await deps.memories.get(userId, id);
  return { ...memoryView(deps.embedder.modelId)(memory), ...(await deps.relations.lineage(userId, id)) };
}
