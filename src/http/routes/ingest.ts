import { Elysia, t } from "elysia";
import { DEFAULT_NAMESPACE, Namespace, ScopeField, Uuid } from "../../domain/memory";
import { ExtractedFact } from "../../domain/ingest/extractor";
import { IngestSource } from "../../domain/ingest/ingest";
import { authPlugin } from "../auth-plugin";
import { jsonBody } from "../validation";
import type { AppDeps } from "../deps";


/** Conversations and text into facts: ingest stores them (paid), extract only returns them (free). */
export const ingestRoutes = (deps: AppDeps) =>
  new Elysia({ detail: { tags: ["ingest"] } })
    .use(authPlugin(deps))
    .post(
      "/v1/ingest",
      async ({ body, wallet, userId, setHeader, request, set }) => {
        const result = await deps.paywall.charge(wallet, "POST /v1/ingest", request, setHeader, () =>
          deps.ingest.run(userId, {
            messages: body.messages,
            text: body.text,
            namespace: body.namespace ?? DEFAULT_NAMESPACE,
            session_id: body.session_id,
            agent_id: body.agent_id,
            auto_relate: body.auto_relate ?? false,
          }),
        );
        set.status = 201;
        return result;
      },
      {
        ...jsonBody(
          t.Object({
            ...IngestSource,
            namespace: t.Optional(Namespace),
            session_id: t.Optional(ScopeField),
            agent_id: t.Optional(ScopeField),
            auto_relate: t.Optional(t.Boolean()),
          }),
        ),
        response: {
          201: t.Object({
            memory_ids: t.Array(Uuid, { description: "ids of the newly stored facts" }),
            facts_extracted: t.Integer(),
            facts_stored: t.Integer(),
            facts_deduplicated: t.Integer({ description: "facts already known (not stored again)" }),
            relations_created: t.Integer(),
            tokens_used: t.Integer({ description: "LLM tokens; 0 with the offline extractor" }),
          }),
        },
        detail: {
          summary: "Extract facts from a conversation or text and store the new ones (paid)",
          description: "Give `messages` (roles user, assistant, system, tool) or `text`, not both. Duplicates of existing memories are skipped. See README › Ingest.",
        },
      },
    )
    .post(
      "/v1/extract",
      async ({ body }) => {
        const { facts, tokens_used } = await deps.ingest.extract(body);
        return { facts, tokens_used };
      },
      {
        ...jsonBody(t.Object(IngestSource)),
        response: { 200: t.Object({ facts: t.Array(ExtractedFact), tokens_used: t.Integer() }) },
        detail: {
          summary: "Extract facts without storing them (free)",
          description: "The same extraction as /v1/ingest; each fact has content, memory_type, importance, tags, source {message_index, role}, subject and attribute.",
        },
      },
    );
