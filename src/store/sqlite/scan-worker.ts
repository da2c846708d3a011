/**
 * The scan thread (scan-thread.ts): runs a large wallet's top-k vector search under its filter, the int8 kernel
 * over its rows and exactTopK (first pass, exact rescoring, second pass), on the memory and columns
 * the main thread shares with it, and answers the k nearest rows. It writes only its own areas of
 * the kernel memory (the query and scores areas the layout names), and only while it holds the
 * memory's layout lock under the layout the main thread asked in. Rows the main thread changes
 * meanwhile are the main thread's to detect (wallet-cache.ts compares the wallet's version).
 */
import { fixedPointCosine } from "./fixed-point";
import { LAYOUT_WORDS, type ScanThreadMessage, type ScanThreadReply, type SharedColumns } from "./scan-thread";
import { slotFilter } from "./slot-filter";
import { FACTOR, ROWID } from "./slot-columns";
import { exactTopK } from "./top-k";
import { kernelFor, type ScoreFn } from "./vector-kernel";

declare const self: Worker;

const FREE = 0;
const HELD_BY_SCAN = 1;

const memories = new Map<number, { memory: WebAssembly.Memory; score: ScoreFn; columns?: SharedColumns }>();

self.onmessage = (event: MessageEvent<ScanThreadMessage>) => {
  const msg = event.data;
  if (msg.type === "forget") {
    memories.delete(msg.key);
    return;
  }
  let reply: ScanThreadReply;
  try {
    reply = search(msg);
  } catch (error) {
    reply = { id: msg.id, error: error instanceof Error ? error.message : String(error) };
  }
  if ("rowids" in reply) postMessage(reply, [reply.rowids.buffer as ArrayBuffer, reply.distances.buffer as ArrayBuffer]);
  else postMessage(reply);
};

function search(msg: Extract<ScanThreadMessage, { type: "scan" }>): ScanThreadReply {
  let entry = memories.get(msg.key);
  if (!entry) {
    if (!msg.memory) return { id: msg.id, error: `no memory for key ${msg.key}` };
    entry = { memory: msg.memory, score: kernelFor(msg.stride).bind(msg.memory).scores };
    memories.set(msg.key, entry);
  }
  if (msg.columns) entry.columns = msg.columns;
  const { memory, score, columns } = entry;
  if (!columns) return { id: msg.id, error: `no columns for key ${msg.key}` };
  const words = new Int32Array(memory.buffer, 0, LAYOUT_WORDS.bytes / 4);
  let held: number;
  while ((held = Atomics.compareExchange(words, LAYOUT_WORDS.lock, FREE, HELD_BY_SCAN)) !== FREE) Atomics.wait(words, LAYOUT_WORDS.lock, held, 50);
  try {
    // the main thread moved the areas since it asked: writing at these offsets could hit its rows
    if (Atomics.load(words, LAYOUT_WORDS.generation) !== msg.at.generation) return { id: msg.id, stale: true };
    const { at, range, unit, stride } = msg;
    new Int16Array(memory.buffer, at.query, stride).set(msg.query);
    score(at.query, at.rows + range.from * stride, range.to - range.from, at.scales + 4 * range.from, at.scores + 4 * range.from);
    const dim = unit.length;
    const { vectors, num, capacity } = columns;
    const factors = FACTOR * capacity;
    const rows = { cosine: (slot: number) => fixedPointCosine(unit, vectors, slot * dim, num[factors + slot]!), rowid: (slot: number) => num[ROWID * capacity + slot]! };
    const accept = msg.filter ? slotFilter(msg.filter, columns) : true;
    const { found, secondPass } = exactTopK(new Float32Array(memory.buffer, at.scores, range.to), range, msg.k, msg.want, accept, msg.unitScale, msg.bound, rows);
    return { id: msg.id, rowids: Float64Array.from(found, (f) => f.rowid), distances: Float64Array.from(found, (f) => f.distance), secondPass };
  } finally {
    Atomics.store(words, LAYOUT_WORDS.lock, FREE);
    Atomics.notify(words, LAYOUT_WORDS.lock);
  }
}
