/**
 * Re-embeds every stored memory with the configured EMBEDDING_MODEL and binds the store to it.
 *
 *   EMBEDDING_MODEL=<model> bun run reembed
 *
 * Moves a store between any two models (local ones, `openai:<model>` on EMBEDDING_BASE_URL).
 * Resumable: if it is interrupted, start it again; it skips the memories already re-embedded (see
 * reembed-checkpoint.ts). Meanwhile the store stays bound to the new model, so the service refuses
 * to start with the old one.
 */
import { loadConfig } from "../src/config";
import { openStore } from "../src/store/open-store";
import { embedderOptions, startEmbedder } from "../src/embed/embedder";
import { contentHash } from "../src/domain/text";
import { EmbeddingModelMismatch } from "../src/store/model-binding";
import type { EmbeddingModelInfo, MemoryStore } from "../src/domain/store-port";
import { ReembedCheckpoint } from "./reembed-checkpoint";

const BATCH = 64;

/** Binds the store to `target`; true when it was bound to another model, i.e. a new migration starts. */
async function bind(store: MemoryStore, target: EmbeddingModelInfo): Promise<boolean> {
  try {
    await store.bindEmbeddingModel(target);
    return false;
  } catch (error) {
    if (!(error instanceof EmbeddingModelMismatch)) throw error;
    await store.bindEmbeddingModel(target, true);
    return true;
  }
}

const config = loadConfig();
const store = await openStore(config);
const embedder = await startEmbedder(embedderOptions(config));
const target = { id: embedder.modelId, dimension: embedder.dimension };
const checkpoint = new ReembedCheckpoint(config.DATA_DIR, target);
if (await bind(store, target)) checkpoint.reset();
const finished = checkpoint.load();
if (finished.size > 0) process.stderr.write(`[reembed] resuming: ${finished.size} memories were already re-embedded with ${target.id} (${checkpoint.path})\n`);

const total = await store.countAll();
const started = performance.now();
let done = 0;
let embedded = 0;
try {
  for await (const batch of store.scanAll(BATCH)) {
    const todo = batch.filter(({ memory }) => !finished.has(memory.id));
    if (todo.length > 0) {
      const { vectors } = await embedder.embed(todo.map((b) => b.memory.content));
      for (const [i, { user_id, memory }] of todo.entries()) {
        await store.updateMemory(user_id, { memory, embedding: vectors[i]!, content_hash: contentHash(memory.content) });
      }
      checkpoint.add(todo.map((b) => b.memory.id));
      embedded += todo.length;
    }
    done += batch.length;
    const rate = embedded / ((performance.now() - started) / 1000);
    process.stderr.write(`\r[reembed] ${done}/${total} (${total ? Math.round((100 * done) / total) : 100}%) ${Math.round(rate)} memories/s   `);
  }
} catch (error) {
  process.stderr.write(`\n[reembed] stopped after ${done} of ${total} memories: ${error instanceof Error ? error.message : error}\n`);
  process.stderr.write(`[reembed] run it again to continue where it stopped\n`);
  process.exit(1);
}
checkpoint.remove();
process.stderr.write(`\n[reembed] done: ${done} memories now embedded with ${target.id} (${target.dimension}-d), ${embedded} in this run\n`);
await embedder.close();
await store.close();
