/**
 * What reading text with words the English model does not know (ids, numbers, names) leaves in
 * the JS heap: fact signatures (fact-signature.ts, wink-nlp underneath) of --texts texts, each with
 * a number and an id of its own, as every stored memory of a long-running service gets them. Prints
 * the live heap after forced collections every --every texts, and how many wink instances were made.
 *
 *   bun scripts/bench/english-memory.ts [--texts 150000] [--every 25000]
 */
import { parseArgs } from "node:util";
import { heapStats } from "bun:jsc";
import { factSignature } from "../../src/domain/fact-signature.ts";
import * as english from "../../src/domain/english.ts";
import { printTable } from "./bench-util.ts";

const { values: args } = parseArgs({ options: { texts: { type: "string", default: "150000" }, every: { type: "string", default: "25000" } } });
const [TEXTS, EVERY] = [Number(args.texts), Number(args.every)];
if (!(TEXTS >= 1 && EVERY >= 1)) throw new Error("--texts ≥ 1, --every ≥ 1");

// read through the module, so that the bench runs on trees from before the reader was bounded as well
const { DOCS_PER_INSTANCE, englishReader } = english as Partial<typeof english>;
const instances = () => (englishReader ? String(englishReader.instances) : "1 (never replaced)");

const liveHeap = () => {
  Bun.gc(true);
  return heapStats().heapSize;
};
factSignature("Load the English model first.");
const start = liveHeap();
const rows: string[][] = [];
for (let i = 1; i <= TEXTS; i++) {
  factSignature(`The deploy of service ${i} (ticket ${crypto.randomUUID().slice(0, 8)}) happened on Tuesday.`);
  if (i % EVERY === 0 || i === TEXTS) {
    rows.push([i.toLocaleString("en-US"), ((liveHeap() - start) / 2 ** 20).toFixed(1), instances()]);
    process.stderr.write(`[english-memory] ${i} of ${TEXTS} texts\n`);
  }
}
const bound = DOCS_PER_INSTANCE ? `a wink instance reads ${DOCS_PER_INSTANCE.toLocaleString("en-US")} before it is replaced` : "one wink instance for the process";
console.log(`\nfact signatures of texts with a number and an id each (${bound}):\n`);
printTable(["texts read", "live JS heap growth (MiB)", "wink instances made"], rows);
