import { t, type Static } from "elysia";

/** Limits from the spec's Limits table: the single source for schemas and checks. */
export const LIMITS = {
  content: 8192,
  scopeField: 255,
  metadataBytes: 4096,
  metadataKeys: 20,
  metadataDepth: 3,
  tags: 10,
  tagChars: 64,
  batch: 100,
  pageSize: 100,
  recallQuery: 32768,
  searchQuery: 1000,
} as const;

export const MemoryType = t.Union([
  t.Literal("correction"),
  t.Literal("preference"),
  t.Literal("decision"),
  t.Literal("project"),
  t.Literal("observation"),
  t.Literal("general"),
]);
export type MemoryType = Static<typeof MemoryType>;
export const MEMORY_TYPES = MemoryType.anyOf.map((s) => s.const);

/** Half-lives in days, per the spec's Resources part. */
export const HALF_LIFE_DAYS: Record<MemoryType, number> = {
  correction: 180,
  preference: 180,
  decision: 90,
  project: 30,
  observation: 14,
  general: 60,
};

export const RelationType = t.Union([
  t.Literal("related_to"),
  t.Literal("derived_from"),
  t.Literal("contradicts"),
  t.Literal("supersedes"),
  t.Literal("supports"),
]);
export type RelationType = Static<typeof RelationType>;
export const RELATION_TYPES = RelationType.anyOf.map((s) => s.const);

const Nullable = <T extends ReturnType<typeof t.String>>(s: T) => t.Union([s, t.Null()]);
const ScopeField = t.String({ maxLength: LIMITS.scopeField });
const Timestamp = t.String({ format: "date-time" });
export const Uuid = t.String({ format: "uuid" });

/** metadata: free-form, but `tags` (when present) is a bounded string list. Size and depth are checked by `metadataProblem`. */
export const Metadata = t.Intersect([
  t.Record(t.String(), t.Unknown(), { maxProperties: LIMITS.metadataKeys }),
  t.Object({ tags: t.Optional(t.Array(t.String({ maxLength: LIMITS.tagChars }), { maxItems: LIMITS.tags })) }),
]);
export type Metadata = Static<typeof Metadata>;

/** The memory record, as stored and as returned. Timestamps are ISO 8601 UTC strings everywhere. */
export const Memory = t.Object({
  id: Uuid,
  user_id: Uuid,
  namespace: t.String(),
  content: t.String(),
  metadata: Metadata,
  importance: t.Number(),
  memory_type: MemoryType,
  session_id: Nullable(t.String()),
  agent_id: Nullable(t.String()),
  pinned: t.Boolean(),
  immutable: t.Boolean(),
  expires_at: Nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
  accessed_at: Timestamp,
  access_count: t.Integer(),
  deleted_at: Nullable(Timestamp),
});
export type Memory = Static<typeof Memory>;

/** Fields a client may set when storing (POST /v1/store and each item of /v1/store/batch). */
export const StoreFields = t.Object({
  content: t.String({ minLength: 1, maxLength: LIMITS.content }),
  metadata: t.Optional(Metadata),
  importance: t.Optional(t.Number({ minimum: 0, maximum: 1 })),
  namespace: t.Optional(t.String({ minLength: 1, maxLength: LIMITS.scopeField })),
  memory_type: t.Optional(MemoryType),
  session_id: t.Optional(ScopeField),
  agent_id: t.Optional(ScopeField),
  expires_at: t.Optional(Timestamp),
  pinned: t.Optional(t.Boolean()),
  immutable: t.Optional(t.Boolean()),
});
export type StoreFields = Static<typeof StoreFields>;

/** Fields a client may change with PATCH (single and batch). `expires_at: null` clears the expiry. */
export const PatchFields = t.Object(
  {
    content: t.Optional(t.String({ minLength: 1, maxLength: LIMITS.content })),
    metadata: t.Optional(Metadata),
    importance: t.Optional(t.Number({ minimum: 0, maximum: 1 })),
    memory_type: t.Optional(MemoryType),
    namespace: t.Optional(t.String({ minLength: 1, maxLength: LIMITS.scopeField })),
    pinned: t.Optional(t.Boolean()),
    expires_at: t.Optional(Nullable(Timestamp)),
    immutable: t.Optional(t.Boolean()),
  },
  { minProperties: 1 },
);
export type PatchFields = Static<typeof PatchFields>;

export const DEFAULT_NAMESPACE = "default";

/** A new memory record: the spec's defaults for everything not given; all timestamps `at`. */
export function newMemory(fields: Pick<Memory, "user_id" | "content"> & Partial<Memory>, at: string): Memory {
  return {
    id: crypto.randomUUID(),
    namespace: DEFAULT_NAMESPACE,
    metadata: {},
    importance: 0.5,
    memory_type: "general",
    session_id: null,
    agent_id: null,
    pinned: false,
    immutable: false,
    expires_at: null,
    created_at: at,
    updated_at: at,
    accessed_at: at,
    access_count: 0,
    deleted_at: null,
    ...fields,
  };
}

/** Tags live in `metadata.tags`; the top-level `tags` of some responses is this view of it. */
export function tagsOf(memory: Pick<Memory, "metadata">): string[] {
  return memory.metadata.tags ?? [];
}

/** Checks what a schema cannot: serialized size and nesting depth. Returns the problem, or null. */
export function metadataProblem(metadata: Metadata): string | null {
  const bytes = Buffer.byteLength(JSON.stringify(metadata));
  if (bytes > LIMITS.metadataBytes) return `metadata: must serialize to at most ${LIMITS.metadataBytes} bytes (got ${bytes})`;
  const depth = depthOf(metadata);
  if (depth > LIMITS.metadataDepth) return `metadata: must be at most ${LIMITS.metadataDepth} levels deep (got ${depth})`;
  return null;
}

function depthOf(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  const children = Object.values(value as object);
  return 1 + (children.length ? Math.max(...children.map(depthOf)) : 0);
}

/** An ISO 8601 expiry given by a client must lie in the future. */
export function expiryProblem(expiresAt: string | null | undefined, now: number): string | null {
  if (expiresAt == null) return null;
  const at = Date.parse(expiresAt);
  if (Number.isNaN(at)) return "expires_at: must be an ISO 8601 date-time";
  return at > now ? null : "expires_at: must be in the future";
}

export function isExpired(memory: Pick<Memory, "expires_at">, now: number): boolean {
  return memory.expires_at !== null && Date.parse(memory.expires_at) <= now;
}
