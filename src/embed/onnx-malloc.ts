import { dlopen, FFIType } from "bun:ffi";
import { log } from "../log.ts";

/**
 * Fixes glibc's mmap threshold before onnxruntime loads, so that the memory of onnxruntime's large
 * freed buffers goes back to the system. glibc serves an allocation of 128 KiB or more with a mapping
 * of its own and unmaps it when freed, but each such free raises the threshold to the freed size (up to
 * 32 MiB): later buffers that size come from glibc's arenas, which keep them once freed. Whether and
 * when that happened decided ~12 MiB of the service's anonymous memory after its first thousand small
 * wallets (docs/performance.md › Memory per wallet). Setting the threshold (mallopt M_MMAP_THRESHOLD)
 * ends the adjustment. Only onnxruntime allocates through glibc here (Bun itself uses mimalloc).
 *
 * Imported by embedder.ts on the main thread before the embedding worker exists (the setting is the
 * process's). An operator's MALLOC_MMAP_THRESHOLD_ (which glibc reads at start) is kept; on a C library
 * other than glibc this does nothing.
 */
const M_MMAP_THRESHOLD = -3;
/** glibc's own starting threshold, kept fixed. */
export const MMAP_THRESHOLD_BYTES = 128 * 1024;

if (process.platform === "linux" && process.env.MALLOC_MMAP_THRESHOLD_ === undefined) fixMmapThreshold();

function fixMmapThreshold(): void {
  try {
    const libc = dlopen("libc.so.6", {
      gnu_get_libc_version: { args: [], returns: FFIType.cstring },
      mallopt: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    });
    libc.symbols.gnu_get_libc_version(); // absent from musl: throws there, before mallopt
    if (libc.symbols.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES) !== 1) log.warn("[engram] glibc refused mallopt(M_MMAP_THRESHOLD); onnxruntime's freed buffers may stay resident");
    libc.close();
  } catch {
    // not glibc (musl, a static build): its allocator has no such threshold to fix
  }
}
