import { Elysia, t } from "elysia";
import { Uuid } from "../../domain/memory";
import { ListedRelation, Relation, RelationInput } from "../../domain/relation";
import { authPlugin } from "../auth-plugin";
import { jsonBody, NO_BODY } from "../validation";
import type { AppDeps } from "../deps";

/** Typed relations between memories (the graph's edges). */
export const relationRoutes = (deps: AppDeps) =>
  new Elysia({ detail: { tags: ["relations"] } })
    .use(authPlugin(deps))
    .post(
      "/v1/memories/:id/relations",
      async ({ params, body, userId, set }) => {
        const relation = await deps.relations.create(userId, params.id, body);
        set.status = 201;
        return { ...relation, created: true as const };
      },
      {
        params: t.Object({ id: Uuid }),
        ...jsonBody(RelationInput),
        response: { 201: t.Composite([Relation, t.Object({ created: t.Literal(true, { description: "MemoClaw clients read it" }) })]) },
        detail: { summary: "Relate this memory (source) to a target memory", description: "404 if either memory is missing; 409 if the same typed relation exists; 422 for a self-relation. `metadata` has a memory's limits (4 KB, 20 keys, 3 levels, `tags` at most 10 strings of 64 characters)." },
      },
    )
    .get("/v1/memories/:id/relations", async ({ params, userId }) => ({ relations: await deps.relations.list(userId, params.id) }), {
      params: t.Object({ id: Uuid }),
      response: { 200: t.Object({ relations: t.Array(ListedRelation) }) },
      detail: { summary: "Relations of a memory, incoming and outgoing, newest first", description: "Each with `memory`, the memory at its other end." },
    })
    .delete(
      "/v1/memories/:id/relations/:relationId",
      async ({ params, userId }) => {
        await deps.relations.delete(userId, params.id, params.relationId);
        return { deleted: true as const, id: params.relationId };
      },
      { ...NO_BODY, params: t.Object({ id: Uuid, relationId: Uuid }), response: { 200: t.Object({ deleted: t.Literal(true), id: Uuid }) }, detail: { summary: "Delete a relation" } },
    );
