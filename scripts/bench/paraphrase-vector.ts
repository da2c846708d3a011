/**
 * How far the embedding model alone goes on the paraphrase set: each question ranked by cosine
 * against the set's own memories and hard distractors (no service, no keyword signal, no synthetic
 * distractors). It bounds what recall's fusion can reach on that set with this model.
 *
 *   [EMBEDDING_MODEL=<id>] bun scripts/bench/paraphrase-vector.ts
 */
import { join, resolve } from "node:path";
import { PARAPHRASE_SET } from "./paraphrase-set.ts";
import { printTable, startBenchEmbedder } from "./bench-util.ts";
import { cosine } from "../../src/domain/text.ts";

const cacheDir = resolve(process.env.MODEL_CACHE_DIR ?? join(import.meta.dir, "../../.cache/models"));
const embedder = await startBenchEmbedder(cacheDir);

async function embedAll(texts: string[]): Promise<Float32Array[]> {
  const vectors: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += 64) vectors.push(...(await embedder.embed(texts.slice(i, i + 64))).vectors);
  return vectors;
}

// Memory i·4 is case i's memory; the next three are its hard distractors.
const texts = PARAPHRASE_SET.flatMap((c) => [c.memory, ...c.distractors]);
const stride = 4;
console.error(`[paraphrase-vector] ${embedder.modelId}: embedding ${texts.length} memories and ${PARAPHRASE_SET.length} questions…`);
const memories = await embedAll(texts);
const questions = await embedAll(PARAPHRASE_SET.map((c) => c.question));

const hits = { r1: 0, r5: 0, r10: 0, ownFirst: 0 };
questions.forEach((q, i) => {
  const target = cosine(q, memories[i * stride]!);
  const rank = memories.filter((m, j) => j !== i * stride && cosine(q, m) > target).length;
  if (rank < 1) hits.r1++;
  if (rank < 5) hits.r5++;
  if (rank < 10) hits.r10++;
  const own = memories.slice(i * stride + 1, (i + 1) * stride).map((m) => cosine(q, m));
  if (own.every((c) => c < target)) hits.ownFirst++;
});
const pct = (n: number) => ((100 * n) / questions.length).toFixed(1);
printTable(
  ["model", "memories", "questions", "R@1", "R@5", "R@10", "above its own hard distractors"],
  [[embedder.modelId, String(texts.length), String(questions.length), pct(hits.r1), pct(hits.r5), pct(hits.r10), `${pct(hits.ownFirst)}%`]],
);
process.exit(0);
