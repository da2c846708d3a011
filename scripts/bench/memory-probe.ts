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
 * - /proc/self/status and smaps_rollup.
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

function answer(probe: number, gc: boolean): ProbeAnswer {
  if (gc) Bun.gc(true);
  const stats = heapStats();
  const mi = (stats as unknown as { mimalloc?: Record<string, { current: number }> }).mimalloc;
  const current = (key: string) => mi?.[key]?.current ?? 0;
  // bytes in use by block size: which sizes grow tells which allocations do
  const bins: Record<number, number> = {};
  for (const bin of (mi as unknown as { malloc_bins?: { current: number; block_size: number }[] })?.malloc_bins ?? []) if (bin.current > 0) bins[bin.block_size] = bin.current * bin.block_size;
  return {
    probe,
    status: kbFields(readFileSync("/proc/self/status", "utf8")),
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
  };
}

if (process.send) {
  process.on("message", (message: { probe?: number; gc?: boolean }) => {
    if (typeof message?.probe === "number") process.send!(answer(message.probe, message.gc === true));
  });
}
