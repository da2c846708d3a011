/**
 * The int8 dot-product kernel behind the vector index, as a tiny WebAssembly SIMD module assembled
 * here byte by byte (no toolchain, no binary blob in the repo), with a plain JS fallback.
 *
 * For rows of `stride` int8 values (the quantized vectors, zero-padded to a multiple of 8) and a query
 * of `stride` int16 values, it writes `out[i] = f32(Σ_j row_i[j] · query[j]) · scales[i]` for every row.
 * In WAT, per row (the inner step fully unrolled for the stride, alternating two accumulators):
 *
 *   acc = i32x4.add(acc, i32x4.dot_i16x8_s(v128.load8x8_s(row + 8u), v128.load(query + 16u)))
 *   out[i] = f32.convert_i32_s(lane0 + lane1 + lane2 + lane3 of acc + acc2) * scales[i]
 *
 * Exported: `scores(query, rows, n, scales, out)`, all byte offsets into the imported memory, and
 * `gather(query, rows, slots, n, scales, out)`, the same for the rows listed in `slots` (i32 indexes).
 */

export type ScoreFn = (query: number, rows: number, n: number, scales: number, out: number) => void;
/** `out[i]` = the score of row `slots[i]` (i32 row indexes), for i < n: a subset of the rows, as `scores` would score it. */
export type GatherFn = (query: number, rows: number, slots: number, n: number, scales: number, out: number) => void;

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
  brIf: (depth: number) => [0x0d, ...uleb(depth)],
  get: (i: number) => [0x20, ...uleb(i)],
  set: (i: number) => [0x21, ...uleb(i)],
  tee: (i: number) => [0x22, ...uleb(i)],
  i32: (n: number) => [0x41, ...sleb(n)],
  i32load: [0x28, 2, 0],
  i32mul: [0x6c],
  i32eqz: [0x45],
  i32ltu: [0x49],
  i32add: [0x6a],
  i32shl: [0x74],
  f32load: [0x2a, 2, 0],
  f32store: [0x38, 2, 0],
  f32mul: [0x94],
  f32fromI32: [0xb2],
  // SIMD: 0xfd prefix, LEB opcode, then memarg (align, offset) or lane immediates
  v128load: (offset: number) => [0xfd, ...uleb(0x00), 4, ...uleb(offset)],
  v128load8x8s: (offset: number) => [0xfd, ...uleb(0x01), 3, ...uleb(offset)],
  v128zero: [0xfd, ...uleb(0x0c), ...new Array<number>(16).fill(0)],
  i32x4lane: (lane: number) => [0xfd, ...uleb(0x1b), lane],
  i32x4add: [0xfd, ...uleb(0xae)],
  i32x4dot16: [0xfd, ...uleb(0xba)],
};

/**
 * One function body: `scores` walks the rows in order; `gather` (slots given) reads each row's index
 * from the slots list first, and its scale by that index.
 */
function kernelBody(stride: number, gather: boolean): number[] {
  // params: query, rows, [slots,] n, scales, out; then locals: i, row, slot (i32), acc, acc2 (v128)
  const [query, rows, slots, n, scales, out] = gather ? [0, 1, 2, 3, 4, 5] : [0, 1, -1, 2, 3, 4];
  const [i, row, slot, acc, acc2] = gather ? [6, 7, 8, 9, 10] : [5, 6, 7, 8, 9];
  const steps: number[] = [];
  for (let u = 0; u < stride / 8; u++) {
    const a = u % 2 === 0 ? acc : acc2;
    steps.push(...op.get(a), ...op.get(row), ...op.v128load8x8s(u * 8), ...op.get(query), ...op.v128load(u * 16), ...op.i32x4dot16, ...op.i32x4add, ...op.set(a));
  }
  const lane = (l: number) => [...op.get(acc), ...op.i32x4lane(l)];
  const at4 = (base: number, index: number) => [...op.get(base), ...op.get(index), ...op.i32(2), ...op.i32shl, ...op.i32add];
  // gather: slot = slots[i], row = rows + slot · stride; scores: row advances by stride, the slot is i
  const findRow = gather
    ? [...at4(slots, i), ...op.i32load, ...op.tee(slot), ...op.i32(stride), ...op.i32mul, ...op.get(rows), ...op.i32add, ...op.set(row)]
    : [];
  const nextRow = gather ? [] : [...op.get(row), ...op.i32(stride), ...op.i32add, ...op.set(row)];
  const code = [
    ...op.block,
    ...op.get(n), ...op.i32eqz, ...op.brIf(0),
    ...op.i32(0), ...op.set(i),
    ...op.get(rows), ...op.set(row),
    ...op.loop,
    ...findRow,
    ...op.v128zero, ...op.tee(acc), ...op.set(acc2),
    ...steps,
    ...op.get(acc), ...op.get(acc2), ...op.i32x4add, ...op.set(acc),
    ...at4(out, i),
    ...lane(0), ...lane(1), ...op.i32add, ...lane(2), ...op.i32add, ...lane(3), ...op.i32add,
    ...op.f32fromI32, ...at4(scales, gather ? slot : i), ...op.f32load, ...op.f32mul, ...op.f32store,
    ...nextRow,
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
    ...section(2, vec([[...name("env"), ...name("memory"), 0x02, 0x00, 0x01]])), // import env.memory, min 1 page
    ...section(3, vec([[0x00], [0x01]])),
    ...section(7, vec([[...name("scores"), 0x00, 0x00], [...name("gather"), 0x00, 0x01]])),
    ...section(10, vec([kernelBody(stride, false), kernelBody(stride, true)])),
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
