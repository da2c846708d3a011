import type { ChatRole, ExtractInput, ExtractedFact, ExtractionResult, Extractor } from "./extractor.ts";
import { clampContent, factKey } from "./extractor.ts";
import { attributeOf, subjectOf, subjectPhrase } from "./facets.ts";
import { splitClauses } from "./offline/clauses.ts";
import { classifyType, importanceFor, mentionsCorrection, tagsFor } from "./offline/classify.ts";
import {
  type Signals,
  imperativeOf,
  isAcknowledgement,
  isGreeting,
  isHedged,
  isQuestion,
  isStatement,
  isTransient,
  moveTimeLead,
  restoreSubject,
  stripLeadIns,
  stripTrailers,
} from "./offline/filters.ts";
import { subjectLength } from "./offline/grammar.ts";
import { ownerFromIntro, readDislocated, readKeyValue } from "./offline/key-value.ts";
import { type Entity, expandContractions, rewritePerson } from "./offline/rewrite.ts";
import { chunkText, splitSentences } from "./offline/sentences.ts";

/**
 * Deterministic, network-free fact extraction (the default extractor).
 *
 * Roles mined:
 *   user, and plain `text` input — every durable statement.
 *   system    — statements about the user or world ("The user is a senior engineer…");
 *               sentences addressing the model ("You are a helpful assistant") are skipped.
 *   assistant — only decisions, corrections and project facts stated as facts
 *               ("Decision recorded: we'll use Redis", "The repo's .nvmrc pins Node 20");
 *               suggestions, opinions, first-person talk and chit-chat are skipped,
 *               because the assistant's guesses are not what the user told us.
 *   tool      — ignored: outputs are transient and often large.
 *
 * Pipeline per message: chunks on sentence boundaries → sentences → lead-ins
 * stripped (their signals kept) → drop greetings/acks/questions → "Key: value"
 * lines → clauses → drop hedges/transient/tasks → person rewrite (see
 * offline/rewrite.ts) → type, importance, tags (offline/classify.ts) → subject and
 * attribute (facets.ts). Identical facts (case/punctuation-insensitive) are kept
 * once, with the highest importance seen.
 */

export interface OfflineExtractorOptions {
  /** Characters per chunk; chunks end on sentence boundaries. */
  chunkChars?: number;
}

interface Unit {
  content: string;
  role: ChatRole | null;
  index: number | null;
}

/** Per-conversation memory of the extractor: the last subject per role resolves "it" in corrections. */
interface Context {
  owner: string;
  lastSubject: Map<ChatRole | null, string>;
}

const ASSISTANT_TYPES = new Set(["decision", "project", "correction"]);
const ASSISTANT_CHATTER =
  /\b(?:i|me|my|mine|you (?:could|can|might|may|should|want to)|consider|how about|feel free|here is|here are|happy to|glad|hope|try|recommend|suggest)\b/i;

export class OfflineExtractor implements Extractor {
  readonly name = "offline";
  private readonly chunkChars: number;

  constructor(opts: OfflineExtractorOptions = {}) {
    this.chunkChars = Math.max(200, opts.chunkChars ?? 4000);
  }

  async extract(input: ExtractInput): Promise<ExtractionResult> {
    return { facts: this.extractSync(input), tokens_used: 0 };
  }

  /** Synchronous core, also used by benchmarks. */
  extractSync(input: ExtractInput): ExtractedFact[] {
    const facts = new Map<string, ExtractedFact>();
    const ctx: Context = { owner: "The", lastSubject: new Map() };
    for (const unit of unitsOf(input)) {
      ctx.owner = "The";
      for (const chunk of chunkText(unit.content, this.chunkChars)) {
        for (const sentence of splitSentences(chunk)) {
          for (const fact of factsFromSentence(sentence, unit, ctx)) keep(facts, fact);
        }
      }
    }
    return [...facts.values()];
  }
}

function unitsOf(input: ExtractInput): Unit[] {
  const units: Unit[] = (input.messages ?? [])
    .map((m, index) => ({ content: m.content, role: m.role, index }))
    .filter((u) => u.role !== "tool");
  if (input.text) units.push({ content: input.text, role: null, index: null });
  return units;
}

function keep(facts: Map<string, ExtractedFact>, fact: ExtractedFact): void {
  const key = factKey(fact.content);
  const seen = facts.get(key);
  if (!seen) facts.set(key, fact);
  else seen.importance = Math.max(seen.importance, fact.importance);
}

function normalize(sentence: string): string {
  return expandContractions(sentence.replace(/[“”]/g, '"').replace(/\p{Extended_Pictographic}/gu, ""))
    .replace(/\s+/g, " ")
    .trim();
}

function factsFromSentence(raw: string, unit: Unit, ctx: Context): ExtractedFact[] {
  const sentence = normalize(raw);
  if (sentence.endsWith(":")) {
    ctx.owner = ownerFromIntro(sentence); // "Here's my setup:" owns the list below
    return [];
  }
  const { text, signals } = stripLeadIns(sentence);
  if (!text || isAcknowledgement(text) || isGreeting(text) || isQuestion(text)) return [];
  const kv = readKeyValue(text, ctx.owner);
  if (kv?.kind === "meta") return [];
  const body = readDislocated(text) ?? (kv ? kv.text : text);
  const facts: ExtractedFact[] = [];
  for (const clause of splitClauses(body)) {
    const fact = factFromClause(clause, signals, unit, ctx);
    if (fact) facts.push(fact);
  }
  return facts;
}

/** Sentence is addressed to the model or is the assistant chatting, not a fact to keep. */
function isRoleNoise(clause: string, role: ChatRole | null): boolean {
  if (role === "system") return /\byou(?:r|rs|rself)?\b/i.test(clause);
  if (role === "assistant") return ASSISTANT_CHATTER.test(clause);
  return false;
}

interface Prepared {
  clause: string;
  prefix: string;
}

/**
 * Apply lead-in/trailer stripping and the drop rules; null when the clause is
 * not a fact. Adds the clause's own signals to `signals` (a per-clause copy).
 */
function prepare(raw: string, signals: Signals, role: ChatRole | null): Prepared | null {
  const lead = stripLeadIns(raw);
  addSignals(signals, lead.signals);
  const trimmed = stripTrailers(lead.text);
  const clause = role === "user" || role === null ? restoreSubject(moveTimeLead(trimmed)) : moveTimeLead(trimmed);
  if (mentionsCorrection(clause)) signals.correction = true; // mid-sentence "it's actually…"
  if (!clause || isAcknowledgement(clause) || isGreeting(clause) || isQuestion(clause)) return null;
  if (isHedged(clause) || isTransient(clause) || isRoleNoise(clause, role)) return null;
  const imperative = imperativeOf(clause);
  if (imperative?.kind === "task") return null;
  if (imperative?.kind === "standing") {
    if (role === "assistant") return null;
    const body = imperative.body.replace(/^(?:do not|don't)\s+/i, "not ");
    // A system prompt's standing rule is the operator's, not something the user said.
    const prefix = role === "system" ? "The assistant should " : "User wants the assistant to ";
    return { clause: body.charAt(0).toLowerCase() + body.slice(1), prefix };
  }
  const statement = imperative?.kind === "decision" ? imperative.body : clause;
  return isStatement(statement, signals) ? { clause: statement, prefix: "" } : null;
}

function addSignals(into: Signals, from: Signals): void {
  into.correction ||= from.correction;
  into.decision ||= from.decision;
  into.important ||= from.important;
}

/** "it is spelled Anna" in a correction → "User's name is spelled Anna" (previous subject, same speaker). */
function resolveIt(clause: string, signals: Signals, unit: Unit, ctx: Context): string {
  const previous = ctx.lastSubject.get(unit.role);
  if (!signals.correction || !previous || !/^it\s+is\b/i.test(clause)) return clause;
  return `${previous}${clause.slice(2)}`;
}

function tidy(content: string): string {
  const text = content
    .replace(/\bactually\b,?\s*/gi, "") // the correction lives in memory_type; content states the fact
    .replace(/\s+([,.;:!])(?=\s|$)/g, "$1")
    .replace(/[\s.,;:!-]+$/, "")
    .replace(/\s+/g, " ")
    .trim();
  return clampContent(text.charAt(0).toUpperCase() + text.slice(1));
}

function factFromClause(raw: string, sentenceSignals: Signals, unit: Unit, ctx: Context): ExtractedFact | null {
  const signals = { ...sentenceSignals };
  const prepared = prepare(raw, signals, unit.role);
  if (!prepared) return null;
  const clause = resolveIt(prepared.clause, signals, unit, ctx);
  // After "User wants the assistant to", a later "my" reads "their".
  const mentioned: Entity[] = prepared.prefix.startsWith("User") ? ["user"] : [];
  const content = tidy(prepared.prefix + rewritePerson(clause, unit.role, { mentioned }));
  if (!content) return null;
  const lower = `${clause} ${content}`.toLowerCase();
  const hasSubject = subjectLength(content) > 0;
  const memoryType = classifyType(lower, signals, hasSubject);
  if (unit.role === "assistant" && !ASSISTANT_TYPES.has(memoryType)) return null;
  const attribute = attributeOf(content);
  rememberSubject(content, unit, ctx);
  return {
    content,
    memory_type: memoryType,
    importance: importanceFor(memoryType, lower, signals),
    tags: tagsFor(memoryType, content, attribute),
    source: { message_index: unit.index, role: unit.role },
    subject: subjectOf(content),
    attribute,
  };
}

function rememberSubject(content: string, unit: Unit, ctx: Context): void {
  const count = subjectPhrase(content).split(" ").filter(Boolean).length;
  if (count > 0) ctx.lastSubject.set(unit.role, content.split(/\s+/).slice(0, count).join(" "));
}
