import type { Memory } from "./memory";
import { tagsOf } from "./memory";

const CSV_COLUMNS = ["id", "content", "importance", "memory_type", "namespace", "tags", "created_at", "updated_at", "deleted_at", "pinned", "session_id", "agent_id"] as const;

/** RFC 4180: quote every field that has a comma, quote or line break; double inner quotes. */
function csvField(value: unknown): string {
  const text = value === null || value === undefined ? "" : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One header row, then one row per memory; `tags` joined with "|" (a tag cannot be split by it without ambiguity only if it contains "|"). */
export function toCsv(memories: Memory[]): string {
  const rows = memories.map((m) =>
    CSV_COLUMNS.map((c) => csvField(c === "tags" ? tagsOf(m).join("|") : m[c])).join(","),
  );
  return [CSV_COLUMNS.join(","), ...rows].join("\r\n") + "\r\n";
}

/** A level-1 title, then one level-2 section per memory: content as a block quote, fields as a list. */
export function toMarkdown(memories: Memory[]): string {
  const sections = memories.map((m) => {
    const quote = m.content.split("\n").map((line) => `> ${line}`).join("\n");
    const fields = [
      `- id: \`${m.id}\``,
      `- type: ${m.memory_type} · namespace: ${m.namespace} · importance: ${m.importance}${m.pinned ? " · pinned" : ""}`,
      `- tags: ${tagsOf(m).join(", ") || "(none)"}`,
      `- created: ${m.created_at} · updated: ${m.updated_at}${m.deleted_at ? ` · deleted: ${m.deleted_at}` : ""}`,
    ];
    return `## ${m.memory_type}: ${m.content.split("\n")[0]!.slice(0, 80)}\n\n${quote}\n\n${fields.join("\n")}\n`;
  });
  return [`# Memories (${memories.length})\n`, ...sections].join("\n");
}
