import { Elysia, t } from "elysia";
import { CLOSED, DEFAULT_NAMESPACE, Namespace, ScopeField, Uuid } from "../../domain/memory";
import { ExtractedFact } from "../../domain/ingest/extractor";
import { IngestSource } from "../../domain/ingest/ingest";
import { authPlugin, type Caller } from "../auth-plugin";
import { migrate, MigrateFile, MIGRATE_LIMITS } from "../../domain/migrate";
import { jsonBody } from "../validation";
import type { AppDeps } from "../deps";
import { ingestAnswer, IngestBody } from "../operations/ingest";


const ingestOptions = {
  ...jsonBody(IngestBody),
  response: {
    201: t.Object({
      memory_ids: t.Array(Uuid, { description: "ids of the newly stored facts" }),
      facts_extracted: t.Integer(),
      facts_stored: t.Integer(),
      facts_deduplicated: t.Integer({ description: "facts already known (not stored again)" }),
      relations_created: t.Integer(),
      tokens_used: t.Integer({ description: "LLM tokens; 0 with the offline extractor" }),
      memories_created: t.Integer({ description: "the same as facts_stored (MemoClaw clients read it)" }),
    }),
  },
};

/** Conversations, text and files into memories: ingest and migrate store them (paid), extract only returns facts (free). */
export const ingestRoutes = (deps: AppDeps) => {
  /** POST /v1/ingest and its MemoClaw name POST /v1/memories/extract: one implementation. */
  const ingest = async ({ body, wallet, userId, setHeader, request, set }: Caller & { body: IngestBody; request: Request; set: { status?: number | string } }) => {
    const answer = await deps.paywall.charge(wallet, "POST /v1/ingest", request, setHeader, () => ingestAnswer(deps, userId, body));
    set.status = 201;
    return answer;
  };
  return new Elysia({ detail: { tags: ["ingest"] } })
    .use(authPlugin(deps))
    .post("/v1/ingest", (c) => ingest(c), { ...ingestOptions, detail: { summary: "Extract facts from a conversation or text and store the new ones (paid)", description: "Give `messages` (roles user, assistant, system, tool) or `text`, not both. Duplicates of existing memories are skipped. docs/retrieval.md explains the extraction." } })
    .post("/v1/memories/extract", (c) => ingest(c), { ...ingestOptions, detail: { summary: "Extract and store facts (paid; MemoClaw's name of POST /v1/ingest)", description: "The same call as POST /v1/ingest. To extract without storing, use POST /v1/extract." } })
    .post(
      "/v1/migrate",
      async ({ body, wallet, userId, setHeader, request, set }) => {
        const options = { namespace: body.namespace ?? DEFAULT_NAMESPACE, session_id: body.session_id, agent_id: body.agent_id, auto_tag: body.auto_tag ?? false };
        const result = await deps.paywall.charge(wallet, "POST /v1/store/batch", request, setHeader, () => migrate(deps.memories, userId, body.files, options, body.dry_run ?? false));
        set.status = 201;
        return { ...result, duplicates_skipped: result.memories_deduplicated };
      },
      {
        ...jsonBody(
          t.Object({
            files: t.Array(MigrateFile, { minItems: 1, maxItems: MIGRATE_LIMITS.files }),
            namespace: t.Optional(Namespace),
            session_id: t.Optional(ScopeField),
            agent_id: t.Optional(ScopeField),
            auto_tag: t.Optional(t.Boolean({ description: "tag each memory with its file name and section heading" })),
            dry_run: t.Optional(t.Boolean({ description: "store nothing; memories_created is how many memories the files hold" })),
            deduplicate: t.Optional(t.Boolean({ description: "accepted for MemoClaw clients; duplicates are always skipped" })),
          }, CLOSED),
        ),
        response: {
          201: t.Object({
            memory_ids: t.Array(Uuid),
            files_processed: t.Integer(),
            memories_created: t.Integer(),
            memories_deduplicated: t.Integer({ description: "already known (as a memory or earlier in the import): not stored" }),
            duplicates_skipped: t.Integer({ description: "the same as memories_deduplicated" }),
            tokens_used: t.Integer({ description: "embedding tokens" }),
            dry_run: t.Boolean(),
          }),
        },
        detail: {
          summary: "Import Markdown or text files as memories (paid as a batch store)",
          description: "Each list item and paragraph becomes a memory (headings name sections; code blocks stay with their paragraph); at most 100 files and 2,000 memories per call. docs/api.md describes the layout.",
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
        ...jsonBody(t.Object(IngestSource, CLOSED)),
        response: { 200: t.Object({ facts: t.Array(ExtractedFact), tokens_used: t.Integer() }) },
        detail: {
          summary: "Extract facts without storing them (free)",
          description: "The same extraction as /v1/ingest; each fact has content, memory_type, importance, tags, source {message_index, role}, subject and attribute.",
        },
      },
    );
};
