import { firstFiniteIndex, subjectLength, wordsOf } from "./grammar.ts";

/**
 * "Key: value" lines (bullets in a setup list, note headers) → statements.
 *   "- Editor: Neovim" under "Here's my setup:" → "User's editor is Neovim"
 *   "Attendees: Priya, Tom" → dropped (meeting metadata, not a fact)
 *   "Decision recorded: we'll use Redis" → the clause after the colon
 * The owner ("User's", "The team's", "The") comes from the line that
 * introduced the list ("my setup:" / "our stack:"); see `ownerFromIntro`.
 */

const KEY_VALUE = /^([\p{L}][\p{L}\p{N} .+#/&-]{0,40}?)\s*:\s+(.+)$/u;
const META_KEYS = new Set([
  "attendees", "participants", "date", "time", "agenda", "subject", "from", "to", "cc", "re", "when", "where", "notes",
]);

export type KeyValueLine =
  | { kind: "statement"; text: string }
  | { kind: "clause"; text: string }
  | { kind: "meta" };

export function readKeyValue(sentence: string, owner: string): KeyValueLine | null {
  const m = KEY_VALUE.exec(sentence.trim());
  const key = m?.[1]?.trim();
  const value = m?.[2]?.trim().replace(/[.!]+$/, "");
  if (!key || !value) return null;
  const keyWords = wordsOf(key);
  if (keyWords.length > 4 || firstFiniteIndex(keyWords) >= 0) return null;
  // "new email: anna@keller.dev talk soon": a contact value is the whole value, whatever runs on after it
  const contact = CONTACT.exec(value);
  if (contact?.index === 0) return statementOf(keyWords, key, contact[0].trim(), owner);
  if (subjectLength(value) > 0 || firstFiniteIndex(wordsOf(value)) >= 0) return { kind: "clause", text: value };
  if (META_KEYS.has(keyWords.join(" "))) return { kind: "meta" };
  return statementOf(keyWords, key, value, owner);
}

function statementOf(keyWords: string[], key: string, value: string, owner: string): KeyValueLine {
  if (/^(?:the|my|our|a|an)$/.test(keyWords[0] ?? "")) return { kind: "statement", text: `${key} is ${value}` };
  const shownKey = /^[A-Z0-9]+$/.test(key) ? key : key.toLowerCase();
  return { kind: "statement", text: `${owner} ${shownKey} is ${value}` };
}

/** Owner for the key-value lines under an intro line ending in ":". */
export function ownerFromIntro(intro: string): string {
  const words = wordsOf(intro);
  if (words.some((w) => w === "my" || w === "i")) return "User's";
  if (words.some((w) => w === "our" || w === "we")) return "The team's";
  return "The";
}

/** An e-mail address or a phone number (7+ digits). */
const CONTACT = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\+?\d[\d ()./-]{5,}\d/;
const DISLOCATED = /\s*[,;:–—-]\s*(?:that|this|it) is (my|our) ((?:new |current )?[\p{L}][\p{L} -]{1,30}?)\s*[.!]*$/iu;

/**
 * A contact value named first and labelled after: "Send things to anna@keller.dev, that's my email"
 * → "my email is anna@keller.dev" (the first half is often a request, and would be dropped with it).
 */
export function readDislocated(sentence: string): string | null {
  const label = DISLOCATED.exec(sentence);
  const value = label ? CONTACT.exec(sentence.slice(0, label.index)) : null;
  if (!label || !value) return null;
  return `${label[1]} ${label[2]} is ${value[0].trim()}`;
}
