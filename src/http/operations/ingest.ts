import { t, type Static } from "elysia";
import { CLOSED, DEFAULT_NAMESPACE, Namespace, ScopeField } from "../../domain/memory";
import { IngestSource } from "../../domain/ingest/ingest";
import type { AppDeps } from "../deps";

/** Ingest as an operation: one body schema and one answer, for POST /v1/ingest (and its alias) and the MCP `ingest` tool. */
export const IngestBody = t.Object({
  ...IngestSource,
  namespace: t.Optional(Namespace),
  session_id: t.Optional(ScopeField),
  agent_id: t.Optional(ScopeField),
  auto_relate: t.Optional(t.Boolean()),
}, CLOSED);
export type IngestBody = Static<typeof IngestBody>;

/** Extracts facts and stores the new ones; `memories_created` repeats facts_stored for MemoClaw clients. */
export async function ingestAnswer(deps: AppDeps, userId: string, body: IngestBody) {
  const result = await deps.ingest.run(userId, {
    messages: body.messages,
    text: body.text,
    namespace: body.namespace ?? DEFAULT_NAMESPACE,
    session_id: body.session_id,
    agent_id: body.agent_id,
    auto_relate: body.auto_relate ?? false,
  });
  return { ...result, memories_created: result.facts_stored };
}
