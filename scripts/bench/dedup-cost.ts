/**
 * What the dedup fact check costs on the store path: the one-time model load, the first read of a
 * text (tokenise + POS-tag + lemmatise; cached afterwards) and a comparison of two already-read texts.
 *
 *   bun scripts/bench/dedup-cost.ts [--texts 2000]
 */
import { loadEnglishModel } from "../../src/domain/english";
import { factSignature, sameFacts } from "../../src/domain/fact-signature";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { texts: { type: "string", default: "2000" } } });
const count = Number(values.texts);

const SUBJECTS = ["User", "The team", "Alice", "The billing service", "Our staging cluster"];
const VERBS = ["prefers", "does not use", "migrated to", "deploys", "no longer runs"];
const OBJECTS = ["Postgres 16", "dark mode in the editor", "tabs over spaces", "$5 per month plans", "three Redis replicas in Frankfurt"];
const TAILS = ["", " on Tuesdays", " since March 2024", " because of workspace hoisting and faster CI builds", " for every customer-facing API"];
// Distinct texts (a counter in each) so every read misses the cache, as new content does.
const texts = Array.from({ length: count }, (_, i) => `${SUBJECTS[i % 5]} ${VERBS[(i >> 1) % 5]} ${OBJECTS[(i >> 2) % 5]}${TAILS[(i >> 3) % 5]} (note ${i}).`);

let t = performance.now();
loadEnglishModel();
const loadMs = performance.now() - t;

t = performance.now();
for (const text of texts) factSignature(text);
const readMs = (performance.now() - t) / count;

const PAIRS = 100_000;
t = performance.now();
for (let i = 0; i < PAIRS; i++) sameFacts(texts[i % count]!, texts[(i * 7 + 1) % count]!);
const pairUs = ((performance.now() - t) / PAIRS) * 1000;

const words = texts.reduce((n, s) => n + s.split(/\s+/).length, 0) / count;
console.log(`model load: ${loadMs.toFixed(0)} ms (once per process)`);
console.log(`first read of a text (~${words.toFixed(0)} words): ${readMs.toFixed(3)} ms`);
console.log(`comparison of two read texts: ${pairUs.toFixed(2)} µs`);
