import { t, type Static } from "elysia";
import { FormatRegistry } from "@sinclair/typebox";
import { invalid } from "./errors";

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
  /** list/core `offset`: offset + limit stay within RediSearch's MAXSEARCHRESULTS default (1,000,000) */
  offset: 999_900,
  /** nesting of any JSON request body, checked on the raw text before parsing (the deepest valid body is 7) */
  bodyDepth: 16,
  /** any request body (the largest valid one, an ingest of 1,000 × 32,768-char messages, is about 32 MB) */
  bodyBytes: 64 * 1024 * 1024,
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

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:Z|[+-](\d{2}):(\d{2}))$/i;

/** A real RFC 3339 instant: calendar date that exists, 00:00:00–23:59:59, offset within ±23:59. */
export function isIsoDateTime(value: string): boolean {
  const stored = storedFormCheck(value);
  if (stored !== null) return stored;
  const m = ISO_DATE_TIME.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second, offH = 0, offM = 0] = m.slice(1).map((v) => (v === undefined ? undefined : Number(v))) as number[];
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  return month! >= 1 && month! <= 12 && day! >= 1 && day! <= daysInMonth && hour! <= 23 && minute! <= 59 && second! <= 59 && offH <= 23 && offM <= 59;
}

/** The digits at [from, from + n) as a number, or -1 when one is not a digit. */
function digitsAt(value: string, from: number, n: number): number {
  let x = 0;
  for (let i = from; i < from + n; i++) {
    const d = value.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    x = x * 10 + d;
  }
  return x;
}

/**
 * isIsoDateTime of a value in the form stored timestamps have (toISOString: YYYY-MM-DDTHH:MM:SS.sssZ),
 * without a regular expression or a Date; null for any other form. Every timestamp of every answer
 * is checked against its schema, and this form is almost all of them (a page of 20 memories has ~80).
 */
function storedFormCheck(value: string): boolean | null {
  if (value.length !== 24 || value[4] !== "-" || value[7] !== "-" || value[10] !== "T" || value[13] !== ":" || value[16] !== ":" || value[19] !== "." || value[23] !== "Z") return null;
  const year = digitsAt(value, 0, 4), month = digitsAt(value, 5, 2), day = digitsAt(value, 8, 2);
  const hour = digitsAt(value, 11, 2), minute = digitsAt(value, 14, 2), second = digitsAt(value, 17, 2);
  if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0 || digitsAt(value, 20, 3) < 0) return null;
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return false;
  // as Date.UTC counts them (the general check below): years 0–99 are 1900–1999
  const y = year < 100 ? year + 1900 : year;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  return day <= (month === 2 ? (leap ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31);
}

// Elysia's own "date-time" accepts a date alone, a trailing NUL, 31 February and 24:00; every
// date-time field (expires_at, filters.after, export before/after) uses this strict check instead.
FormatRegistry.Set("date-time", isIsoDateTime);

const Nullable = <T extends ReturnType<typeof t.String>>(s: T) => t.Union([s, t.Null()]);
/** namespace, session_id and agent_id wherever they are accepted: as values or as filters. */
export const ScopeField = t.String({ maxLength: LIMITS.scopeField });
export const Namespace = t.String({ minLength: 1, maxLength: LIMITS.scopeField });
export const Timestamp = t.String({ format: "date-time" });
/** A Timestamp in the form memories store theirs (UTC, milliseconds), which filters compare as strings. */
export const storedTimestamp = (value: string | undefined) => (value ? new Date(value).toISOString() : undefined);
/** Ids are UUIDs in lowercase hex, as engram writes them: an upper-case id is refused (422) rather than not found. */
export const uuid = (description = "a UUID in lowercase hex") => t.String({ pattern: "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", description });
export const Uuid = uuid();

/** A tag list: at most LIMITS.tags tags of LIMITS.tagChars characters. */
export const tagList = (description?: string) => t.Array(t.String({ maxLength: LIMITS.tagChars }), { maxItems: LIMITS.tags, description });
export const Tags = tagList();

/** metadata: free-form, but `tags` (when present) is a bounded string list. Size and depth are checked by `checkMetadata`. */
export const Metadata = t.Intersect([
  t.Record(t.String(), t.Unknown(), { maxProperties: LIMITS.metadataKeys }),
  t.Object({ tags: t.Optional(Tags) }),
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

/**
 * Request bodies declare every field they take and are closed (`additionalProperties: false`): an
 * undeclared field is refused (422 `unknown_field`), never silently dropped. Free-form objects
 * (`metadata`) are records.
 */
export const CLOSED = { additionalProperties: false } as const;

/** Fields a client may set when storing (POST /v1/store and each item of /v1/store/batch). */
export const StoreFields = t.Object({
  content: t.String({ minLength: 1, maxLength: LIMITS.content }),
  metadata: t.Optional(Metadata),
  importance: t.Optional(t.Number({ minimum: 0, maximum: 1 })),
  namespace: t.Optional(Namespace),
  memory_type: t.Optional(MemoryType),
  session_id: t.Optional(ScopeField),
  agent_id: t.Optional(ScopeField),
  expires_at: t.Optional(Timestamp),
  pinned: t.Optional(t.Boolean()),
  immutable: t.Optional(t.Boolean()),
  tags: t.Optional(tagList("the same as metadata.tags (MemoClaw clients send it here); 422 when both are given and differ")),
}, CLOSED);
export type StoreFields = Static<typeof StoreFields>;

/** Fields a client may change with PATCH (single and batch). `expires_at: null` clears the expiry. */
export const PatchFields = t.Object(
  {
    content: t.Optional(t.String({ minLength: 1, maxLength: LIMITS.content })),
    metadata: t.Optional(Metadata),
    importance: t.Optional(t.Number({ minimum: 0, maximum: 1 })),
    memory_type: t.Optional(MemoryType),
    namespace: t.Optional(Namespace),
    pinned: t.Optional(t.Boolean()),
    expires_at: t.Optional(Nullable(Timestamp)),
    immutable: t.Optional(t.Boolean()),
    session_id: t.Optional(Nullable(ScopeField)),
    agent_id: t.Optional(Nullable(ScopeField)),
    tags: t.Optional(tagList("sets metadata.tags, keeping the other metadata keys; 422 when metadata.tags is given too and differs")),
  },
  { minProperties: 1, ...CLOSED },
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

/**
 * The top-level `tags` alias folded into metadata: `metadata.tags` when only `tags` is given (over
 * `base`, the metadata it completes: a PATCH without metadata keeps the memory's other keys), the
 * same when both agree; 422 when both are given and differ. Returns the metadata to use, or
 * undefined when neither was given.
 */
export function foldTags(tags: string[] | undefined, metadata: Metadata | undefined, base: Metadata, field: string): Metadata | undefined {
  if (tags === undefined) return metadata;
  if (metadata?.tags !== undefined && JSON.stringify(metadata.tags) !== JSON.stringify(tags)) {
    throw invalid(`${field}tags: differs from ${field}metadata.tags (give one, or the same list)`, { field: `${field}tags`, rule: "conflict", conflicts_with: `${field}metadata/tags` });
  }
  return { ...(metadata ?? base), tags };
}

/**
 * Checks what a schema cannot: serialized size and nesting depth (422 naming the limit). The
 * request's raw nesting is bounded before parsing (LIMITS.bodyDepth), so the walk here is shallow.
 */
export function checkMetadata(metadata: Record<string, unknown>, field = "metadata"): void {
  // an empty tag names nothing (checked here, on input, so records stored before still read back)
  const emptyTag = Array.isArray(metadata.tags) ? metadata.tags.indexOf("") : -1;
  if (emptyTag >= 0) throw invalid(`${field}/tags/${emptyTag}: a tag must not be empty`, { field: `${field}/tags/${emptyTag}`, rule: "min_length", min_length: 1, actual_length: 0 });
  const keys = Object.keys(metadata).length;
  if (keys > LIMITS.metadataKeys) {
    throw invalid(`${field}: must have at most ${LIMITS.metadataKeys} keys (got ${keys})`, { field, rule: "max_properties", max_properties: LIMITS.metadataKeys, actual_properties: keys });
  }
  const depth = depthOf(metadata);
  if (depth > LIMITS.metadataDepth) {
    throw invalid(`${field}: must be at most ${LIMITS.metadataDepth} levels deep (got ${depth})`, { field, rule: "max_depth", max_depth: LIMITS.metadataDepth, actual_depth: depth });
  }
  const bytes = Buffer.byteLength(JSON.stringify(metadata));
  if (bytes > LIMITS.metadataBytes) {
    throw invalid(`${field}: must serialize to at most ${LIMITS.metadataBytes} bytes (got ${bytes})`, { field, rule: "max_bytes", max_bytes: LIMITS.metadataBytes, actual_bytes: bytes });
  }
}

/** Content must say something: text of only spaces and control characters is refused (422), never stored. */
export function checkContent(content: string | undefined, field = "content"): void {
  if (content !== undefined && !/[^\s\p{Cc}]/u.test(content)) {
    throw invalid(`${field}: must contain a visible character (got only spaces or control characters)`, { field, rule: "blank" });
  }
}

function depthOf(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  let deepest = 0;
  for (const child of Object.values(value as object)) deepest = Math.max(deepest, depthOf(child));
  return 1 + deepest;
}

/** An ISO 8601 expiry given by a client must lie in the future. */
export function checkExpiry(expiresAt: string | null | undefined, now: number, field = "expires_at"): void {
  if (expiresAt == null) return;
  const at = Date.parse(expiresAt);
  if (!isIsoDateTime(expiresAt) || Number.isNaN(at)) throw invalid(`${field}: must be an ISO 8601 date-time`, { field, rule: "format", format: "date-time" });
  if (at <= now) throw invalid(`${field}: must be in the future`, { field, rule: "future", actual: expiresAt });
}

export function isExpired(memory: Pick<Memory, "expires_at">, now: number): boolean {
  return memory.expires_at !== null && Date.parse(memory.expires_at) <= now;
}
