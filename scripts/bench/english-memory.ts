/**
 * What reading text with words the English model does not know (ids, numbers, names) leaves behind:
 * fact signatures (fact-signature.ts, wink-nlp underneath) of --texts texts, each with a number and
 * an id of its own, as every stored memory of a long-running service gets them. Three readings every
 * --every texts:
 * - the live JS heap after forced collections (texts read on the main thread);
 * - the process's anonymous RSS with the texts read in one long-lived worker thread, nothing forced;
 * - the same through the service's fact thread (src/embed/fact-thread.ts, batches of 20 texts as a
 *   batch store sends), whose worker is renewed as it grows.
 *
 *   bun scripts/bench/english-memory.ts [--texts 150000] [--every 25000]
 */
import { parseArgs } from "node:util";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { heapStats } from "bun:jsc";
import { factSignature } from "../../src/domain/fact-signature.ts";
import { anonymousRss } from "../../src/store/sqlite/rss-watch.ts";
import { FactThread } from "../../src/embed/fact-thread.ts";
import { printTable } from "./bench-util.ts";

const text = (i: number) => `The deploy of service ${i} (ticket ${crypto.randomUUID().slice(0, 8)}) happened on Tuesday.`;
const MiB = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

if (!isMainThread) {
  // the worker: reads the texts and says how many it has read every `every` (the main thread reads RSS then)
  const { texts, every } = workerData as { texts: number; every: number };
  factSignature("Load the English model first.");
  parentPort!.postMessage({ read: 0 });
  for (let i = 1; i <= texts; i++) {
    factSignature(text(i));
    if (i % every === 0 || i === texts) parentPort!.postMessage({ read: i });
  }
} else {
  const { values: args } = parseArgs({ options: { texts: { type: "string", default: "150000" }, every: { type: "string", default: "25000" } } });
  const [TEXTS, EVERY] = [Number(args.texts), Number(args.every)];
  if (!(TEXTS >= 1 && EVERY >= 1)) throw new Error("--texts ≥ 1, --every ≥ 1");

  const liveHeap = () => {
    Bun.gc(true);
    return heapStats().heapSize;
  };
  factSignature("Load the English model first.");
  const start = liveHeap();
  const heapRows: string[][] = [];
  for (let i = 1; i <= TEXTS; i++) {
    factSignature(text(i));
    if (i % EVERY === 0 || i === TEXTS) {
      const growth = liveHeap() - start;
      heapRows.push([i.toLocaleString("en-US"), MiB(growth), (growth / i).toFixed(0)]);
      process.stderr.write(`[english-memory] main thread: ${i} of ${TEXTS} texts\n`);
    }
  }

  const rssRows = await new Promise<string[][]>((resolve, reject) => {
    const rows: string[][] = [];
    let base = 0;
    const worker = new Worker(new URL(import.meta.url), { workerData: { texts: TEXTS, every: EVERY } });
    worker.on("error", reject);
    worker.on("message", ({ read }: { read: number }) => {
      const rss = anonymousRss() ?? 0;
      if (read === 0) base = rss;
      else {
        rows.push([read.toLocaleString("en-US"), MiB(rss - base), ((rss - base) / read).toFixed(0)]);
        process.stderr.write(`[english-memory] worker: ${read} of ${TEXTS} texts\n`);
      }
      if (read === TEXTS) worker.terminate().then(() => resolve(rows), reject);
    });
  });

  const thread = new FactThread();
  await thread.factSignatures(["Load the English model first."]);
  const threadBase = anonymousRss() ?? 0;
  const threadRows: string[][] = [];
  const BATCH = 20;
  for (let i = 0; i < TEXTS; i += BATCH) {
    await thread.factSignatures(Array.from({ length: Math.min(BATCH, TEXTS - i) }, (_, j) => text(i + j + 1)));
    const read = Math.min(i + BATCH, TEXTS);
    if (read % EVERY === 0 || read === TEXTS) {
      const growth = (anonymousRss() ?? 0) - threadBase;
      threadRows.push([read.toLocaleString("en-US"), MiB(growth), (growth / read).toFixed(0), String(thread.started)]);
      process.stderr.write(`[english-memory] fact thread: ${read} of ${TEXTS} texts\n`);
    }
  }
  await thread.close();

  console.log("\nfact signatures of texts with a number and an id each\n");
  console.log("read on the main thread, live JS heap after forced collections:\n");
  printTable(["texts read", "live JS heap growth (MiB)", "per text (B)"], heapRows);
  console.log("\nread in a worker thread, nothing forced, the process's anonymous RSS:\n");
  printTable(["texts read", "RssAnon growth (MiB)", "per text (B)"], rssRows);
  console.log("\nread by the fact thread, nothing forced, the process's anonymous RSS:\n");
  printTable(["texts read", "RssAnon growth (MiB)", "per text (B)", "workers started"], threadRows);
}
