/**
 * What reading text with words the English model does not know (ids, numbers, names) leaves in
 * the JS heap: fact signatures (fact-signature.ts, wink-nlp underneath) of --texts texts, each with
 * a number and an id of its own, as every stored memory of a long-running service gets them. Prints
 * the live heap after forced collections every --every texts.
 *
 *   bun scripts/bench/english-memory.ts [--texts 150000] [--every 25000]
 */
import { parseArgs } from "node:util";
import { heapStats } from "bun:jsc";
import { factSignature } from "../../src/domain/fact-signature.ts";
import { printTable } from "./bench-util.ts";

const { values: args } = parseArgs({ options: { texts: { type: "string", default: "150000" }, every: { type: "string", default: "25000" } } });
const [TEXTS, EVERY] = [Number(args.texts), Number(args.every)];
if (!(TEXTS >= 1 && EVERY >= 1)) throw new Error("--texts ≥ 1, --every ≥ 1");

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
    const growth = liveHeap() - start;
    rows.push([i.toLocaleString("en-US"), (growth / 2 ** 20).toFixed(1), (growth / i).toFixed(0)]);
    process.stderr.write(`[english-memory] ${i} of ${TEXTS} texts\n`);
  }
}
console.log("\nfact signatures of texts with a number and an id each:\n");
printTable(["texts read", "live JS heap growth (MiB)", "per text (B)"], rows);
