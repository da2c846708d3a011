/**
 * src/embed/onnx-malloc.ts: after it loads, glibc serves a large buffer with a mapping of its own even
 * after a larger one was freed (without it, that free raises the threshold and the buffer comes from
 * the arena, which keeps it); an operator's MALLOC_MMAP_THRESHOLD_ is left to glibc.
 */
import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");

/** In a fresh process: free a 4 MiB buffer, then say where glibc puts a 1 MiB one: "heap" (the main arena) or "mapping". */
function whereAfterLargeFree(importModule: boolean, env: Record<string, string> = {}): string {
  const script = `
    ${importModule ? 'import "./src/embed/onnx-malloc.ts";' : ""}
    import { dlopen, FFIType } from "bun:ffi";
    import { readFileSync } from "node:fs";
    const libc = dlopen("libc.so.6", { malloc: { args: [FFIType.u64], returns: FFIType.ptr }, free: { args: [FFIType.ptr], returns: FFIType.void } });
    libc.symbols.free(libc.symbols.malloc(4 << 20));
    const p = BigInt(libc.symbols.malloc(1 << 20));
    const line = readFileSync("/proc/self/maps", "utf8").split("\\n").find((l) => {
      const [lo, hi] = l.split(" ")[0].split("-").map((x) => BigInt("0x" + x));
      return p >= lo && p < hi;
    });
    console.log(line?.includes("[heap]") ? "heap" : "mapping");`;
  const run = Bun.spawnSync(["bun", "-e", script], { cwd: ROOT, env: { ...process.env, ...env }, stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(run.stderr.toString());
  return run.stdout.toString().trim();
}

describe.skipIf(process.platform !== "linux")("glibc's mmap threshold", () => {
  test("without the module, a large free moves the next large buffer into the arena", () => {
    expect(whereAfterLargeFree(false)).toBe("heap");
  });

  test("with it, the next large buffer gets a mapping of its own", () => {
    expect(whereAfterLargeFree(true)).toBe("mapping");
  });

  test("an operator's MALLOC_MMAP_THRESHOLD_ is glibc's to apply", () => {
    expect(whereAfterLargeFree(true, { MALLOC_MMAP_THRESHOLD_: "67108864" })).toBe("heap");
  });
});
