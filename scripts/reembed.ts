/**
 * Re-embeds every stored memory with the configured EMBEDDING_MODEL and binds the store to it.
 *
 *   EMBEDDING_MODEL=<model> bun run reembed
 *
 * Safe to re-run: if it is interrupted, start it again (the store stays bound to the new model,
 * so the service refuses to start with the old one until the migration completes).
 */
import { loadConfig } from "../src/config";
import { openStore } from "../src/store/open-store";
import { embedderOptions, startEmbedder } from "../src/embed/embedder";
import { contentHash } from "../src/domain/text";

const BATCH = 64;

const config = loadConfig();
const store = await openStore(config);
const embedder = await startEmbedder(embedderOptions(config));
await store.bindEmbeddingModel({ id: embedder.modelId, dimension: embedder.dimension }, true);

const total = await store.countAll();
const started = performance.now();
let done = 0;
for await (const batch of store.scanAll(BATCH)) {
  const { vectors } = await embedder.embed(batch.map((b) => b.memory.content));
  for (const [i, { user_id, memory }] of batch.entries()) {
    await store.updateMemory(user_id, { memory, embedding: vectors[i]!, content_hash: contentHash(memory.content) });
  }
  done += batch.length;
  const rate = done / ((performance.now() - started) / 1000);
  process.stderr.write(`\r[reembed] ${done}/${total} (${total ? Math.round((100 * done) / total) : 100}%) ${Math.round(rate)} memories/s   `);
}
process.stderr.write(`\n[reembed] done: ${done} memories now embedded with ${embedder.modelId} (${embedder.dimension}-d)\n`);
await embedder.close();
await store.close();
