/**
 * The int8 dot-product kernel behind the vector index, as a tiny WebAssembly SIMD module assembled
 * here byte by byte (no toolchain, no binary blob in the repo), with a plain JS fallback.
 *
 * For rows of `stride` int8 values (the quantized vectors, zero-padded to a multiple of 8) and a query
 * of `stride` int16 values, it writes `out[i] = f32(Σ_j row_i[j] · query[j]) · scales[i]` for every row.
 * Rows are taken four at a time (the inner step fully unrolled for the stride), one accumulator each,
 * sharing each load of the query; in WAT:
 *
 *   q = v128.load(query + 16u)
 *   acc_r = i32x4.add(acc_r, i32x4.dot_i16x8_s(v128.load8x8_s(row + r·stride + 8u), q))   for r = 0..3
 *   v128.store(out + 4i, f32x4.mul(f32x4.convert_i32x4_s(lane sums of acc_0..acc_3), v128.load(scales + 4i)))
 *
 * The four lane sums come from two rounds of shuffles and adds, so a row costs no lane extraction:
 * per row the old one-row loop spent as many shuffle-port operations on its horizontal sum and
 * conversion as on a third of its dot products. The last n mod 4 rows go through a one-row loop.
 *
 * Exported: `scores(query, rows, n, scales, out)`, all byte offsets into the imported memory, and
 * `gather(query, rows, slots, n, scales, out)`, the same for the rows listed in `slots` (i32 indexes),
 * one row at a time.
 */

export type ScoreFn = (query: number, rows: number, n: number, scales: number, out: number) => void;
/** `out[i]` = the score of row `slots[i]` (i32 row indexes), for i < n: a subset of the rows, as `scores` would score it. */
export type GatherFn = (query: number, rows: number, slots: number, n: number, scales: number, out: number) => void;

/**
 * The kernel's memory is shared (a SharedArrayBuffer), so a worker thread can scan the rows the
 * main thread keeps (scan-worker.ts); shared memories need a maximum, here the whole 32-bit space
 * (address space only: pages are committed as the memory grows).
 */
export const KERNEL_MAX_PAGES = 65536;

/** A memory the kernel can use: shared, growable to KERNEL_MAX_PAGES. */
export function kernelMemory(): WebAssembly.Memory {
  return new WebAssembly.Memory({ initial: 1, maximum: KERNEL_MAX_PAGES, shared: true });
}

/** A compiled kernel for one stride: instantiate it per memory. */
export interface Kernel {
  readonly stride: number;
  readonly simd: boolean;
  bind(memory: WebAssembly.Memory): { scores: ScoreFn; gather: GatherFn };
}

const uleb = (value: number): number[] => {
  const out: number[] = [];
  let n = value >>> 0;
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
};
const sleb = (value: number): number[] => {
  const out: number[] = [];
  let n = value | 0;
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) return [...out, byte];
    out.push(byte | 0x80);
  }
};
const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];
const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
const name = (s: string) => [...uleb(s.length), ...new TextEncoder().encode(s)];

const I32 = 0x7f;
const V128 = 0x7b;
const op = {
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  end: [0x0b],
  br: (depth: number) => [0x0c, ...uleb(depth)],
  brIf: (depth: number) => [0x0d, ...uleb(depth)],
  get: (i: number) => [0x20, ...uleb(i)],
  set: (i: number) => [0x21, ...uleb(i)],
  tee: (i: number) => [0x22, ...uleb(i)],
  i32: (n: number) => [0x41, ...sleb(n)],
  i32load: [0x28, 2, 0],
  i32mul: [0x6c],
  i32eqz: [0x45],
  i32ltu: [0x49],
  i32gtu: [0x4b],
  i32geu: [0x4f],
  i32add: [0x6a],
  i32shl: [0x74],
  f32load: [0x2a, 2, 0],
  f32store: [0x38, 2, 0],
  f32mul: [0x94],
  f32fromI32: [0xb2],
  // SIMD: 0xfd prefix, LEB opcode, then memarg (align, offset) or lane immediates
  v128load: (offset: number) => [0xfd, ...uleb(0x00), 4, ...uleb(offset)],
  v128load8x8s: (offset: number) => [0xfd, ...uleb(0x01), 3, ...uleb(offset)],
  v128store: [0xfd, ...uleb(0x0b), 4, 0],
  /** i8x16.shuffle of two vectors by byte lanes (0–15 the first, 16–31 the second) */
  shuffle: (lanes: number[]) => [0xfd, ...uleb(0x0d), ...lanes],
  v128zero: [0xfd, ...uleb(0x0c), ...new Array<number>(16).fill(0)],
  i32x4lane: (lane: number) => [0xfd, ...uleb(0x1b), lane],
  i32x4add: [0xfd, ...uleb(0xae)],
  i32x4dot16: [0xfd, ...uleb(0xba)],
  f32x4mul: [0xfd, ...uleb(0xe6)],
  f32x4fromI32x4: [0xfd, ...uleb(0xfa)],
};

/** Byte lanes selecting i32 lanes: `i32Lanes(0, 1, 4, 5)` takes lanes 0, 1 of the first vector and 0, 1 of the second. */
const i32Lanes = (...lanes: number[]) => lanes.flatMap((l) => [4 * l, 4 * l + 1, 4 * l + 2, 4 * l + 3]);

function scoresBody(stride: number): number[] {
  // params: query 0, rows 1, n 2, scales 3, out 4; locals: i 5, row 6 (i32); q 7, acc 8–11, t 12, t2 13 (v128)
  const [query, rows, n, scales, out, i, row, q] = [0, 1, 2, 3, 4, 5, 6, 7];
  const acc = [8, 9, 10, 11];
  const [t, t2] = [12, 13];
  const at4 = (base: number) => [...op.get(base), ...op.get(i), ...op.i32(2), ...op.i32shl, ...op.i32add];
  const dot = (a: number, offset: number) => [...op.get(a), ...op.get(row), ...op.v128load8x8s(offset), ...op.get(q), ...op.i32x4dot16, ...op.i32x4add, ...op.set(a)];
  const loadQuery = (u: number) => [...op.get(query), ...op.v128load(u * 16), ...op.set(q)];
  const pairSum = (a: number, b: number) => [
    ...op.get(a), ...op.get(b), ...op.shuffle(i32Lanes(0, 1, 4, 5)),
    ...op.get(a), ...op.get(b), ...op.shuffle(i32Lanes(2, 3, 6, 7)),
    ...op.i32x4add,
  ];
  const store = (sums: number[]) => [...at4(out), ...sums, ...op.f32x4fromI32x4, ...at4(scales), ...op.v128load(0), ...op.f32x4mul, ...op.v128store];
  // four rows: [Σacc0, Σacc1, Σacc2, Σacc3] from (acc0+acc1 pairs) and (acc2+acc3 pairs)
  const four: number[] = [];
  for (const a of acc) four.push(...op.v128zero, ...op.set(a));
  for (let u = 0; u < stride / 8; u++) {
    four.push(...loadQuery(u));
    acc.forEach((a, r) => four.push(...dot(a, r * stride + u * 8)));
  }
  four.push(...pairSum(acc[0]!, acc[1]!), ...op.set(t), ...pairSum(acc[2]!, acc[3]!), ...op.set(t2));
  const sums = [
    ...op.get(t), ...op.get(t2), ...op.shuffle(i32Lanes(0, 2, 4, 6)),
    ...op.get(t), ...op.get(t2), ...op.shuffle(i32Lanes(1, 3, 5, 7)),
    ...op.i32x4add,
  ];
  four.push(...store(sums));
  // one row: its lane sum in lane 0, written as a scalar
  const one: number[] = [...op.v128zero, ...op.set(acc[0]!)];
  for (let u = 0; u < stride / 8; u++) one.push(...loadQuery(u), ...dot(acc[0]!, u * 8));
  const lane = (l: number) => [...op.get(acc[0]!), ...op.i32x4lane(l)];
  one.push(...at4(out), ...lane(0), ...lane(1), ...op.i32add, ...lane(2), ...op.i32add, ...lane(3), ...op.i32add);
  one.push(...op.f32fromI32, ...at4(scales), ...op.f32load, ...op.f32mul, ...op.f32store);
  const advance = (rowsBy: number) => [
    ...op.get(row), ...op.i32(rowsBy * stride), ...op.i32add, ...op.set(row),
    ...op.get(i), ...op.i32(rowsBy), ...op.i32add, ...op.set(i),
  ];
  const code = [
    ...op.i32(0), ...op.set(i),
    ...op.get(rows), ...op.set(row),
    ...op.block, ...op.loop, // while i + 4 <= n: four rows
    ...op.get(i), ...op.i32(4), ...op.i32add, ...op.get(n), ...op.i32gtu, ...op.brIf(1),
    ...four, ...advance(4), ...op.br(0),
    ...op.end, ...op.end,
    ...op.block, ...op.loop, // while i < n: one row
    ...op.get(i), ...op.get(n), ...op.i32geu, ...op.brIf(1),
    ...one, ...advance(1), ...op.br(0),
    ...op.end, ...op.end,
    ...op.end, // function
  ];
  const body = [...vec([[2, I32], [7, V128]]), ...code];
  return [...uleb(body.length), ...body];
}

/** `gather`: each row's index read from the slots list first, its row and scale found by that index. */
function gatherBody(stride: number): number[] {
  // params: query 0, rows 1, slots 2, n 3, scales 4, out 5; locals: i 6, row 7, slot 8 (i32), acc 9, acc2 10 (v128)
  const [query, rows, slots, n, scales, out, i, row, slot, acc, acc2] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  const steps: number[] = [];
  for (let u = 0; u < stride / 8; u++) {
    const a = u % 2 === 0 ? acc : acc2;
    steps.push(...op.get(a), ...op.get(row), ...op.v128load8x8s(u * 8), ...op.get(query), ...op.v128load(u * 16), ...op.i32x4dot16, ...op.i32x4add, ...op.set(a));
  }
  const lane = (l: number) => [...op.get(acc), ...op.i32x4lane(l)];
  const at4 = (base: number, index: number) => [...op.get(base), ...op.get(index), ...op.i32(2), ...op.i32shl, ...op.i32add];
  const code = [
    ...op.block,
    ...op.get(n), ...op.i32eqz, ...op.brIf(0),
    ...op.i32(0), ...op.set(i),
    ...op.loop,
    // slot = slots[i], row = rows + slot · stride
    ...at4(slots, i), ...op.i32load, ...op.tee(slot), ...op.i32(stride), ...op.i32mul, ...op.get(rows), ...op.i32add, ...op.set(row),
    ...op.v128zero, ...op.tee(acc), ...op.set(acc2),
    ...steps,
    ...op.get(acc), ...op.get(acc2), ...op.i32x4add, ...op.set(acc),
    ...at4(out, i),
    ...lane(0), ...lane(1), ...op.i32add, ...lane(2), ...op.i32add, ...lane(3), ...op.i32add,
    ...op.f32fromI32, ...at4(scales, slot), ...op.f32load, ...op.f32mul, ...op.f32store,
    ...op.get(i), ...op.i32(1), ...op.i32add, ...op.tee(i), ...op.get(n), ...op.i32ltu, ...op.brIf(0),
    ...op.end, // loop
    ...op.end, // block
    ...op.end, // function
  ];
  const body = [...vec([[3, I32], [2, V128]]), ...code];
  return [...uleb(body.length), ...body];
}

function moduleBytes(stride: number): Uint8Array {
  const params = (count: number) => vec(Array.from({ length: count }, () => [I32]));
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, vec([[0x60, ...params(5), 0x00], [0x60, ...params(6), 0x00]])), // types: (i32 × 5) -> (), (i32 × 6) -> ()
    // import env.memory: shared (the scan worker runs the kernel on the same memory), min 1 page, max MAX_PAGES
    ...section(2, vec([[...name("env"), ...name("memory"), 0x02, 0x03, 0x01, ...uleb(KERNEL_MAX_PAGES)]])),
    ...section(3, vec([[0x00], [0x01]])),
    ...section(7, vec([[...name("scores"), 0x00, 0x00], [...name("gather"), 0x00, 0x01]])),
    ...section(10, vec([scoresBody(stride), gatherBody(stride)])),
  ]);
}

/** The same computation in plain JS, for runtimes without WebAssembly SIMD. */
function jsScores(memory: WebAssembly.Memory, stride: number): ScoreFn {
  return (query, rows, n, scales, out) => {
    const buffer = memory.buffer;
    const q = new Int16Array(buffer, query, stride);
    const r = new Int8Array(buffer, rows, n * stride);
    const s = new Float32Array(buffer, scales, n);
    const o = new Float32Array(buffer, out, n);
    for (let i = 0, base = 0; i < n; i++, base += stride) {
      let dot = 0;
      for (let j = 0; j < stride; j++) dot += r[base + j]! * q[j]!;
      o[i] = dot * s[i]!;
    }
  };
}

/** `gather` in plain JS. */
function jsGather(memory: WebAssembly.Memory, stride: number): GatherFn {
  return (query, rows, slots, n, scales, out) => {
    const buffer = memory.buffer;
    const q = new Int16Array(buffer, query, stride);
    const r = new Int8Array(buffer, rows);
    const list = new Int32Array(buffer, slots, n);
    const s = new Float32Array(buffer, scales);
    const o = new Float32Array(buffer, out, n);
    for (let i = 0; i < n; i++) {
      const slot = list[i]!;
      let dot = 0;
      for (let j = 0; j < stride; j++) dot += r[slot * stride + j]! * q[j]!;
      o[i] = dot * s[slot]!;
    }
  };
}

const kernels = new Map<number, Kernel>();

/** The kernel for `stride` (a multiple of 8), compiled once per process. */
export function kernelFor(stride: number): Kernel {
  if (stride % 8 !== 0 || stride <= 0) throw new Error(`vector kernel: stride must be a positive multiple of 8 (got ${stride})`);
  let kernel = kernels.get(stride);
  if (!kernel) {
    const bytes = moduleBytes(stride);
    const module = WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
    kernel = {
      stride,
      simd: module !== null,
      bind: (memory) => {
        if (!module) return { scores: jsScores(memory, stride), gather: jsGather(memory, stride) };
        const { scores, gather } = new WebAssembly.Instance(module, { env: { memory } }).exports as { scores: ScoreFn; gather: GatherFn };
        return { scores, gather };
      },
    };
    kernels.set(stride, kernel);
  }
  return kernel;
}

/** Test hooks: the JS fallbacks, to check the SIMD kernel against them. */
export const referenceScores = jsScores;
export const referenceGather = jsGather;
