import { t } from "elysia";
import { CLOSED, LIMITS, type StoreFields } from "./memory";
import { INGEST_LIMITS } from "./ingest/ingest";
import type { Memories } from "./memories";
import { invalid } from "./errors";

/** POST /v1/migrate's input bounds: a folder of notes, bounded for the server. */
export const MIGRATE_LIMITS = { files: 100, fileChars: INGEST_LIMITS.textChars, filenameChars: 255, memories: 2000 } as const;

export const MigrateFile = t.Object({
  filename: t.String({ minLength: 1, maxLength: MIGRATE_LIMITS.filenameChars }),
  content: t.String({ maxLength: MIGRATE_LIMITS.fileChars }),
}, CLOSED);

export interface MigrateOptions {
  namespace: string;
  session_id?: string;
  agent_id?: string;
  /** tag each memory with its file's name and its section's heading */
  auto_tag: boolean;
}

/** A tag from free text: lower case, words joined by "-", within the tag length limit. */
export function slugTag(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, LIMITS.tagChars);
}

const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const BULLET = /^\s{0,3}(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?/;
const FENCE = /^\s{0,3}(```|~~~)/;

/**
 * A Markdown or text file as memories: every list item and every paragraph is one memory (a fenced
 * code block stays whole with the paragraph before it); headings are not memories but name the
 * section of what follows. YAML front matter is skipped. A block longer than a memory's content
 * limit is cut at sentence ends (or hard, when a sentence is longer).
 */
export function splitFile(content: string): { text: string; section: string | null }[] {
  const lines = content.replace(/\r\n?/g, "\n").replace(/^---\n[\s\S]*?\n---\n/, "").split("\n");
  const blocks: { text: string; section: string | null }[] = [];
  let section: string | null = null;
  let current: string[] = [];
  let inFence = false;
  const flush = () => {
    const text = current.join("\n").trim();
    if (text) blocks.push({ text, section });
    current = [];
  };
  for (const line of lines) {
    if (FENCE.test(line)) inFence = !inFence;
    if (inFence || FENCE.test(line)) {
      current.push(line);
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      flush();
      section = heading[2]!.trim() || null;
    } else if (line.trim() === "") {
      flush();
    } else if (BULLET.test(line)) {
      flush();
      current.push(line.replace(BULLET, ""));
    } else {
      current.push(line.trim());
    }
  }
  flush();
  return blocks.flatMap((b) => cut(b.text).map((text) => ({ text, section: b.section })));
}

function cut(text: string): string[] {
  if (text.length <= LIMITS.content) return [text];
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > LIMITS.content) {
    const window = rest.slice(0, LIMITS.content);
    const end = Math.max(window.lastIndexOf(". "), window.lastIndexOf("\n"));
    const at = end > LIMITS.content / 2 ? end + 1 : LIMITS.content;
    pieces.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest) pieces.push(rest);
  return pieces;
}

/** Every file's memories as store items, with where each came from in its metadata. */
export function migrationItems(files: { filename: string; content: string }[], options: MigrateOptions): StoreFields[] {
  return files.flatMap((file) =>
    splitFile(file.content).map(({ text, section }) => {
      const tags = options.auto_tag ? [...new Set([slugTag(file.filename.replace(/\.[^.]+$/, "")), section ? slugTag(section) : ""].filter(Boolean))] : [];
      return {
        content: text,
        namespace: options.namespace,
        session_id: options.session_id,
        agent_id: options.agent_id,
        metadata: { ...(tags.length && { tags }), source: { via: "migrate", file: file.filename.slice(0, 255), section: section?.slice(0, 255) ?? null } },
      };
    }),
  );
}

/**
 * Imports files as memories, 100 at a time through the store path (validation, dedup against the
 * wallet's memories and within the import: a duplicate is skipped, the existing memory untouched).
 * `dry_run`: only counts what would be offered for storing.
 */
export async function migrate(memories: Memories, userId: string, files: { filename: string; content: string }[], options: MigrateOptions, dryRun: boolean) {
  const items = migrationItems(files, options);
  if (items.length > MIGRATE_LIMITS.memories) {
    throw invalid(`body/files: the files hold ${items.length} memories; at most ${MIGRATE_LIMITS.memories} per call`, { field: "body/files", rule: "max_items", max_items: MIGRATE_LIMITS.memories, actual_items: items.length });
  }
  const result = { memory_ids: [] as string[], files_processed: files.length, memories_created: 0, memories_deduplicated: 0, tokens_used: 0, dry_run: dryRun };
  if (dryRun) return { ...result, memories_created: items.length };
  for (let i = 0; i < items.length; i += LIMITS.batch) {
    const outcome = await memories.storeMany(userId, items.slice(i, i + LIMITS.batch), { merge: false });
    result.memory_ids.push(...outcome.fresh_ids);
    result.memories_created += outcome.stored;
    result.memories_deduplicated += outcome.deduplicated;
    result.tokens_used += outcome.tokens_used;
  }
  return result;
}
