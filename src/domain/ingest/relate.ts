import type { MemoryType, RelationType } from "../memory.ts";
import { attributeOf, contentTokens, isNegated, subjectOf } from "./facets.ts";
import { NEGATIONS } from "./offline/lexicon.ts";

export { attributeOf, subjectOf } from "./facets.ts";

/**
 * Relation of a new fact to an existing one, for auto_relate. Pure and
 * text-based: stored memories keep only content, so subject and attribute are
 * derived from it (facets.ts) when not given.
 *
 * Rules, first match wins:
 *  1. contradicts — the two have opposite polarity ("User no longer uses Vim" /
 *     "User uses Vim") and the same core content (overlap coefficient ≥ 0.8 of
 *     their content words without negations and correction markers). Requires the
 *     same subject unless both cores have ≥ 3 words.
 *  2. supersedes  — same subject and same non-null attribute, the new fact is
 *     affirmative, and its value differs ("User's name is Anna" / "User's name is
 *     Ana", "User switched to Helix" / "User uses Vim"). A correction restating
 *     the same value is rule 3 instead.
 *  3. supports    — same polarity and the existing fact's content is (≥ 0.8)
 *     contained in the new one: a restatement, possibly with extra detail
 *     ("User uses Vim with a custom config" / "User uses Vim").
 *  4. related_to  — same subject, nothing stronger. Broad by design ("user"
 *     covers a lot): callers apply it to facts from the same ingest only.
 *  5. null.
 * A ", not X" tail is a contrast, not a negation: "The deadline is June 14,
 * not June 7" sets a new value (supersedes) rather than denying the old one.
 */

export interface RelatableFact {
  content: string;
  subject?: string | null;
  attribute?: string | null;
  memory_type?: MemoryType;
}

interface Facets {
  subject: string;
  attribute: string | null;
  negated: boolean;
  core: Set<string>;
}

const MARKERS = new Set(["actually", "correction", "anymore", "longer", "now", "stop", "quit", "still"]);

function facetsOf(fact: RelatableFact): Facets {
  const content = fact.content.replace(/,\s*not\b[^,]*$/i, ""); // contrast tail: not part of the claim
  const subject = fact.subject || subjectOf(fact.content);
  const subjectWords = new Set(subject.split(" "));
  const core = contentTokens(content).filter((w) => !NEGATIONS.has(w) && !MARKERS.has(w) && !subjectWords.has(w));
  return {
    subject,
    attribute: fact.attribute === undefined ? attributeOf(fact.content) : fact.attribute,
    negated: isNegated(fact.content),
    core: new Set(core),
  };
}

function intersection(a: Set<string>, b: Set<string>): number {
  let n = 0;
  for (const w of a) if (b.has(w)) n++;
  return n;
}

/** |A∩B| / min(|A|,|B|): 1 when one is contained in the other. */
function overlap(a: Set<string>, b: Set<string>): number {
  const min = Math.min(a.size, b.size);
  return min === 0 ? 0 : intersection(a, b) / min;
}

/** Share of `inner` found in `outer`. */
function containment(inner: Set<string>, outer: Set<string>): number {
  return inner.size === 0 ? 0 : intersection(inner, outer) / inner.size;
}

/** Value words: the core without the attribute's own words ("name", "deadline"). */
function valueOf(f: Facets): Set<string> {
  const attributeWords = new Set((f.attribute ?? "").split(" "));
  return new Set([...f.core].filter((w) => !attributeWords.has(w)));
}

export function inferRelation(newFact: RelatableFact, existing: RelatableFact): RelationType | null {
  const a = facetsOf(newFact);
  const b = facetsOf(existing);
  const sameSubject = a.subject === b.subject && a.subject !== "unknown";
  const bigEnough = Math.min(a.core.size, b.core.size) >= 3;
  if (a.negated !== b.negated && overlap(a.core, b.core) >= 0.8 && (sameSubject || bigEnough)) return "contradicts";
  if (sameSubject && a.attribute && a.attribute === b.attribute && !a.negated) {
    const [va, vb] = [valueOf(a), valueOf(b)];
    const sameValue = (va.size === 0 && vb.size === 0) || overlap(va, vb) >= 0.8;
    return sameValue ? "supports" : "supersedes";
  }
  if (a.negated === b.negated && containment(b.core, a.core) >= 0.8 && (sameSubject || bigEnough)) return "supports";
  return sameSubject ? "related_to" : null;
}
