/**
 * Offline extraction throughput.
 *   bun scripts/bench/extract.ts [messages=10000]
 * Builds a conversation by repeating every fixture message (all roles, tool
 * included) until it has N messages, then times OfflineExtractor over it, as one
 * input and per conversation; also a ~200k-character plain text.
 */
import { OfflineExtractor } from "../../src/domain/ingest/offline-extractor.ts";
import type { ChatMessage } from "../../src/domain/ingest/extractor.ts";
import { conversations, holdout, holdout2 } from "../../test/fixtures/conversations.ts";

const target = Number(process.argv[2] ?? 10_000);
const extractor = new OfflineExtractor();
const fixtures = [...conversations, ...holdout, ...holdout2];
const pool: ChatMessage[] = fixtures.flatMap((f) => f.input.messages ?? []);
const messages = Array.from({ length: target }, (_, i) => pool[i % pool.length] as ChatMessage);
const prose = fixtures.map((f) => f.input.text ?? "").join(" ");
const text = `${prose} `.repeat(Math.ceil(200_000 / (prose.length + 1))).slice(0, 200_000);

function time(run: () => number): { ms: number; facts: number } {
  run(); // warm-up (JIT, regex compilation)
  const runs = 3;
  let best = Infinity;
  let facts = 0;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    facts = run();
    best = Math.min(best, performance.now() - start);
  }
  return { ms: best, facts };
}

const oneInput = time(() => extractor.extractSync({ messages }).length);
const perConversation = time(() => {
  let n = 0;
  for (let i = 0; i < messages.length; i += 4) n += extractor.extractSync({ messages: messages.slice(i, i + 4) }).length;
  return n;
});
const plainText = time(() => extractor.extractSync({ text }).length);

const chars = messages.reduce((sum, m) => sum + m.content.length, 0);
const rows = [
  ["case", "input", "best of 3", "throughput", "facts"],
  ["one input", `${target} msgs`, `${oneInput.ms.toFixed(0)} ms`, `${Math.round(target / (oneInput.ms / 1000))} msg/s`, String(oneInput.facts)],
  ["4-msg requests", `${target} msgs`, `${perConversation.ms.toFixed(0)} ms`, `${Math.round(target / (perConversation.ms / 1000))} msg/s`, String(perConversation.facts)],
  ["plain text", `${text.length} chars`, `${plainText.ms.toFixed(0)} ms`, `${Math.round(text.length / 1000 / (plainText.ms / 1000))} kchar/s`, String(plainText.facts)],
];
const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => r[c]?.length ?? 0))) ?? [];
for (const r of rows) console.log(r.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join("  "));
console.log(`(${pool.length} distinct fixture messages, ${chars} chars in the ${target}-message input; Bun ${Bun.version})`);
