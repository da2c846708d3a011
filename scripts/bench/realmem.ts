/**
 * RealMem (public, Apache-2.0; see ../shared/datasets/realmem/README.md) as a sequence of events per
 * persona, in the order an agent meets them: every dialogue turn to store, and every query turn to
 * ask before it is stored, with the turns and sessions that hold its evidence.
 *
 * The data is read in place from the shared folder (never copied into the repository).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { gunzipSync } from "node:zlib";

export const REALMEM_DIR = resolve(import.meta.dir, "../../../shared/datasets/realmem");

/** A stored turn: one memory, or several when it exceeds the content limit (split, never cut). */
export interface TurnEvent {
  kind: "turn";
  /** `${session_uuid}#${index}` */
  key: string;
  session: string;
  speaker: string;
  chunks: string[];
  /** the session's date (epoch ms): the bench's clock when the turn is stored */
  at: number;
}

export interface QueryEvent {
  kind: "query";
  id: string;
  text: string;
  category: string;
  session: string;
  at: number;
  /** keys of the turns holding the evidence memory points */
  evidenceTurns: Set<string>;
  evidenceSessions: Set<string>;
}

export interface Persona {
  name: string;
  events: (TurnEvent | QueryEvent)[];
}

interface RawTurn {
  speaker: string;
  content: string;
  is_query?: boolean | string;
  query_id?: string;
  category_name?: string;
  memory_used?: { session_uuid: string; content: string }[] | string;
  memory_session_uuids?: string[] | string;
}
interface RawSession {
  session_uuid: string;
  current_time: string;
  dialogue_turns: RawTurn[];
  extracted_memory?: { session_uuid: string; content: string; source_content_snapshot: string }[];
}

/** Some fields are Python reprs of lists ("['8aa4ca4b']"); JSON ones are used as they are. */
function pyList<T>(value: T[] | string | undefined): T[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value;
  try {
    return JSON.parse(value) as T[];
  } catch {
    // A Python repr: single-quoted strings. Only the uuid lists are parsed this way.
    return [...value.matchAll(/'([^']*)'/g)].map((m) => m[1] as T);
  }
}

/** Splits text into pieces of at most `max` characters, at a whitespace where possible. */
export function splitContent(text: string, max: number): string[] {
  const pieces: string[] = [];
  let rest = text.trim();
  while (rest.length > max) {
    const cut = rest.lastIndexOf(" ", max);
    const at = cut > max / 2 ? cut : max;
    pieces.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest.length > 0) pieces.push(rest);
  return pieces;
}

function parsePersona(name: string, sessions: RawSession[], maxChars: number): Persona {
  // (session_uuid, memory point content) → the turn it was extracted from
  const turnOfPoint = new Map<string, string>();
  const turnKeyByContent = new Map<string, string>();
  for (const s of sessions) {
    s.dialogue_turns.forEach((t, i) => turnKeyByContent.set(`${s.session_uuid}\u0000${t.content}`, `${s.session_uuid}#${i}`));
  }
  for (const s of sessions) {
    for (const m of s.extracted_memory ?? []) {
      const key = turnKeyByContent.get(`${m.session_uuid}\u0000${m.source_content_snapshot}`);
      if (key) turnOfPoint.set(`${m.session_uuid}\u0000${m.content}`, key);
    }
  }
  const events: Persona["events"] = [];
  for (const s of sessions) {
    const at = Date.parse(s.current_time.slice(0, 10) + "T12:00:00Z");
    s.dialogue_turns.forEach((t, i) => {
      const isQuery = t.is_query === true || t.is_query === "True";
      const next = s.dialogue_turns[i + 1];
      if (isQuery && next) {
        const used = pyList(next.memory_used);
        const evidenceTurns = new Set(used.flatMap((u) => turnOfPoint.get(`${u.session_uuid}\u0000${u.content}`) ?? []));
        const evidenceSessions = new Set(pyList<string>(next.memory_session_uuids));
        if (evidenceSessions.size > 0) {
          events.push({ kind: "query", id: t.query_id ?? `${s.session_uuid}#${i}`, text: t.content, category: t.category_name ?? "", session: s.session_uuid, at, evidenceTurns, evidenceSessions });
        }
      }
      const chunks = splitContent(t.content, maxChars);
      if (chunks.length > 0) events.push({ kind: "turn", key: `${s.session_uuid}#${i}`, session: s.session_uuid, speaker: t.speaker, chunks, at });
    });
  }
  return { name, events };
}

/** Every persona of the data set (sorted by file name), or a clear error saying where the data should be. */
export function loadRealMem(maxChars: number, dir = REALMEM_DIR): Persona[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith(".json.gz")).sort();
  } catch {
    throw new Error(`RealMem not found at ${dir}: it lives in the shared folder beside the project (../shared/datasets/realmem)`);
  }
  return files.map((f) => {
    const raw = JSON.parse(gunzipSync(readFileSync(join(dir, f))).toString("utf8")) as { dialogues: RawSession[] };
    return parsePersona(f.replace(/_dialogues_.*$/, ""), raw.dialogues, maxChars);
  });
}
