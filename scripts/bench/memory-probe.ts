/**
 * Preloaded into a service that a memory bench starts (`bun --preload scripts/bench/memory-probe.ts
 * scripts/start.ts`, spawned with an IPC channel): answers `{ probe: id, gc?: true }` messages with
 * what the process's anonymous memory is made of, by allocator. Nothing runs until asked, so the
 * service behaves as without it. With `gc`, a full collection runs first (a diagnosis: a running
 * service collects on its own schedule).
 *
 * - JSC's heap of the main thread (bun:jsc heapStats: live objects, the blocks held, the extra
 *   memory of typed arrays and buffers, object counts by type);
 * - mimalloc, the allocator of Bun itself, JSC's blocks, typed arrays and bun:sqlite (heapStats().mimalloc:
 *   committed and in use);
 * - glibc malloc, the allocator of the native add-ons (onnxruntime, libvips): malloc_info's totals;
 * - /proc/self/status and smaps_rollup;
 * - when asked (`arenas`), where mimalloc's arenas are (`mimallocBlocks`), for the bench to read
 *   /proc/<pid>/smaps by allocator itself (smapsByAllocator): mimalloc's figures are kept per thread
 *   and read too high once worker threads have run, the pages its reservations hold are not. Only
 *   when asked, and parsed by the bench, not here: the probe should add as little as it can to the
 *   process it measures (smaps is ~2 MB of text).
 */
import { heapStats } from "bun:jsc";
import { dlopen, FFIType, ptr } from "bun:ffi";
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface ProbeAnswer {
  probe: number;
  status: Record<string, number>;
  rollup: Record<string, number>;
  jsc: { heapSize: number; heapCapacity: number; extraMemorySize: number; objectCount: number; types: Record<string, number> };
  memoryUsage: NodeJS.MemoryUsage;
  mimalloc: { committed: number; reserved: number; inUse: number; pagesCommitted: number; threads: number; bins: Record<number, number> };
  glibc: { system: number; free: number; mmap: number; inUse: number } | null;
  /** addresses (hex) of blocks mimalloc has just handed out: small, medium and large, one in each of its arenas in use */
  mimallocBlocks: string[];
}

/** Anonymous resident bytes of a process's smaps by whose mappings hold them; the three sum to `anonymous`. */
export interface SmapsByAllocator {
  mimalloc: number;
  mimallocReserved: number;
  glibc: number;
  other: number;
  anonymous: number;
}

/** Lines `Name:   N kB` as bytes. */
function kbFields(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^(\w+):\s+(\d+) kB$/gm)) out[m[1]!] = Number(m[2]) * 1024;
  return out;
}

let libc: ReturnType<typeof openLibc> | null | undefined;
function openLibc() {
  return dlopen("libc.so.6", {
    fopen: { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.ptr },
    fclose: { args: [FFIType.ptr], returns: FFIType.i32 },
    malloc_info: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
  }).symbols;
}

/** glibc's malloc_info totals (the last <total>/<system> lines are the whole process's). */
export function glibcMalloc(): ProbeAnswer["glibc"] {
  try {
    libc ??= openLibc();
  } catch {
    libc = null;
  }
  if (!libc) return null;
  const file = join(tmpdir(), `engram-malloc-info-${process.pid}.xml`);
  const cstr = (s: string) => ptr(Buffer.from(`${s}\0`));
  const fp = libc.fopen(cstr(file), cstr("w"));
  if (!fp) return null;
  libc.malloc_info(0, fp);
  libc.fclose(fp);
  const xml = readFileSync(file, "utf8");
  rmSync(file, { force: true });
  const tail = xml.slice(xml.lastIndexOf("</heap>"));
  const attr = (re: RegExp) => Number(re.exec(tail)?.[1] ?? 0);
  const free = attr(/<total type="fast" count="\d+" size="(\d+)"/) + attr(/<total type="rest" count="\d+" size="(\d+)"/);
  const mmap = attr(/<total type="mmap" count="\d+" size="(\d+)"/);
  const system = attr(/<system type="current" size="(\d+)"/);
  return { system, free, mmap, inUse: system - free + mmap };
}

/** glibc's per-thread arenas: mappings of at most HEAP_MAX_SIZE (64 MiB on 64-bit) that start at a multiple of it. */
const GLIBC_HEAP_MAX = 64n * 2n ** 20n;

interface Mapping {
  start: bigint;
  end: bigint;
  name: string;
  anonymous: number;
}

/** An smaps file's mappings, in address order. */
function mappings(smaps: string): Mapping[] {
  const out: Mapping[] = [];
  for (const text of smaps.split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/)) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \d+ *(.*)$/m.exec(text);
    if (!head) continue;
    const anonymous = Number(/^Anonymous:\s+(\d+) kB$/m.exec(text)?.[1] ?? 0) * 1024;
    out.push({ start: BigInt(`0x${head[1]}`), end: BigInt(`0x${head[2]}`), name: head[3]!, anonymous });
  }
  return out;
}

/**
 * A process's anonymous pages by allocator, from its smaps text and the addresses of blocks its
 * mimalloc handed out (ProbeAnswer.mimallocBlocks). mimalloc's: the runs of adjacent unnamed
 * mappings that hold blocks it has just handed out. Its arenas are reserved whole (1 GiB at first),
 * so one block of each size class finds them, and a run because the kernel splits a reservation
 * into several mappings as parts of it change flags; `mimallocReserved` against heapStats'
 * `reserved` shows an arena missed. glibc's: `[heap]` and its per-thread arenas. The rest (JSC's
 * JIT and structure reservations, thread stacks, glibc's blocks of 128 KiB and more, which it maps
 * one by one) is `other`.
 */
export function smapsByAllocator(smaps: string, blocks: string[]): SmapsByAllocator {
  const addresses = blocks.map((hex) => BigInt(`0x${hex}`));
  const runs: Mapping[][] = [];
  for (const m of mappings(smaps)) {
    const run = runs.at(-1);
    if (run && m.name === "" && run[0]!.name === "" && run.at(-1)!.end === m.start) run.push(m);
    else runs.push([m]);
  }
  const out = { mimalloc: 0, mimallocReserved: 0, glibc: 0, other: 0, anonymous: 0 };
  for (const run of runs) {
    const [start, end] = [run[0]!.start, run.at(-1)!.end];
    const ofMimalloc = run[0]!.name === "" && addresses.some((a) => a >= start && a < end);
    for (const m of run) {
      if (ofMimalloc) {
        out.mimalloc += m.anonymous;
        out.mimallocReserved += Number(m.end - m.start);
      } else if (m.name === "[heap]" || (m.name === "" && m.start % GLIBC_HEAP_MAX === 0n && m.end - m.start <= GLIBC_HEAP_MAX)) out.glibc += m.anonymous;
      else out.other += m.anonymous;
      out.anonymous += m.anonymous;
    }
  }
  return out;
}

function answer(probe: number, gc: boolean, arenas: boolean): ProbeAnswer {
  if (gc) Bun.gc(true);
  // typed arrays' contents come from mimalloc: small, medium and large blocks (small enough that
  // zeroing them adds nothing to the figures)
  const blocks = arenas ? [new Uint8Array(64), new Uint8Array(16 * 1024), new Uint8Array(128 * 1024)] : [];
  const mimallocBlocks = blocks.map((b) => ptr(b).toString(16));
  const status = kbFields(readFileSync("/proc/self/status", "utf8"));
  const stats = heapStats();
  const mi = (stats as unknown as { mimalloc?: Record<string, { current: number }> }).mimalloc;
  const current = (key: string) => mi?.[key]?.current ?? 0;
  // bytes in use by block size: which sizes grow tells which allocations do
  const bins: Record<number, number> = {};
  for (const bin of (mi as unknown as { malloc_bins?: { current: number; block_size: number }[] })?.malloc_bins ?? []) if (bin.current > 0) bins[bin.block_size] = bin.current * bin.block_size;
  return {
    probe,
    status,
    rollup: kbFields(readFileSync("/proc/self/smaps_rollup", "utf8")),
    jsc: { heapSize: stats.heapSize, heapCapacity: stats.heapCapacity, extraMemorySize: stats.extraMemorySize, objectCount: stats.objectCount, types: { ...stats.objectTypeCounts } },
    memoryUsage: process.memoryUsage(),
    mimalloc: {
      committed: current("committed"),
      reserved: current("reserved"),
      inUse: current("malloc_normal") + current("malloc_huge"),
      pagesCommitted: current("page_committed"),
      threads: current("threads"),
      bins,
    },
    glibc: glibcMalloc(),
    mimallocBlocks,
  };
}

if (process.send) {
  process.on("message", (message: { probe?: number; gc?: boolean; arenas?: boolean }) => {
    if (typeof message?.probe === "number") process.send!(answer(message.probe, message.gc === true, message.arenas === true));
  });
}
