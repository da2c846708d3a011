import type { Memory } from "./memory";
import { tagsOf } from "./memory";

const CSV_COLUMNS = ["id", "content", "importance", "memory_type", "namespace", "tags", "created_at", "updated_at", "deleted_at", "pinned", "session_id", "agent_id"] as const;

/** RFC 4180: quote every field that has a comma, quote or line break; double inner quotes. */
function csvField(value: unknown): string {
  const text = value === null || value === undefined ? "" : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The CSV document's header row. */
export const csvHeader = (): string => `${CSV_COLUMNS.join(",")}\r\n`;

/** One row per memory, each ending in CRLF; `tags` joined with "|" (a tag cannot be split by it without ambiguity only if it contains "|"). */
export function csvRows(memories: Memory[]): string {
  return memories.map((m) => `${CSV_COLUMNS.map((c) => csvField(c === "tags" ? tagsOf(m).join("|") : m[c])).join(",")}\r\n`).join("");
}

/** The Markdown document's level-1 title. */
export const markdownTitle = (count: number): string => `# Memories (${count})\n`;

/** One level-2 section per memory, each preceded by a blank line: content as a block quote, fields as a list. */
export function markdownSections(memories: Memory[]): string {
  return memories
    .map((m) => {
      const quote = m.content.split("\n").map((line) => `> ${line}`).join("\n");
      const fields = [
        `- id: \`${m.id}\``,
        `- type: ${m.memory_type} · namespace: ${m.namespace} · importance: ${m.importance}${m.pinned ? " · pinned" : ""}`,
        `- tags: ${tagsOf(m).join(", ") || "(none)"}`,
        `- created: ${m.created_at} · updated: ${m.updated_at}${m.deleted_at ? ` · deleted: ${m.deleted_at}` : ""}`,
      ];
      return `\n## ${m.memory_type}: ${m.content.split("\n")[0]!.slice(0, 80)}\n\n${quote}\n\n${fields.join("\n")}\n`;
    })
    .join("");
}
