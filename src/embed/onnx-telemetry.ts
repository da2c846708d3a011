import { CString, dlopen, FFIType } from "bun:ffi";
import { existsSync } from "node:fs";
import { log } from "../log.ts";

/**
 * Turns onnxruntime's telemetry off before onnxruntime loads. Left on, onnxruntime-node looks up
 * mobile.events.data.microsoft.com ~10 s after it starts and every few seconds after that, and writes
 * /tmp/.ses and ~/.cache/Microsoft/…; ORT_DISABLE_TELEMETRY=1 stops both. Imported first by every
 * module that loads onnxruntime (directly or through transformers.js) and by embedder.ts, so it runs
 * on the main thread before the embedding worker exists. ORT_DISABLE_TELEMETRY set by the operator
 * (e.g. to 0) is kept.
 *
 * onnxruntime reads the C environment (getenv), and Bun's `process.env` assignments do not reach it
 * (Bun 1.4), so the variable is also set with libc's setenv. Nor do they reach a worker thread's
 * process.env, so in the embedding worker this finds the variable in the C environment, already
 * set, and leaves it. process.env carries it to the processes the service spawns (WORKERS > 1).
 */
const NAME = "ORT_DISABLE_TELEMETRY";

if (process.env[NAME] === undefined) process.env[NAME] = ensureNativeEnv(NAME, "1");

/** The C library onnxruntime's getenv reads, where there is one to reach through bun:ffi. */
function libcPath(): string | undefined {
  if (process.platform === "darwin") return "libSystem.B.dylib";
  if (process.platform !== "linux") return undefined;
  const musl = `/lib/ld-musl-${process.arch === "arm64" ? "aarch64" : "x86_64"}.so.1`;
  return existsSync(musl) ? musl : "libc.so.6";
}

/**
 * The variable's value in the C environment, set to `value` first if it has none. setenv only when
 * unset: another thread may be reading the environment (setenv is not safe against that).
 */
function ensureNativeEnv(name: string, value: string): string {
  const path = libcPath();
  if (!path) return value;
  try {
    const libc = dlopen(path, {
      getenv: { args: [FFIType.cstring], returns: FFIType.ptr },
      setenv: { args: [FFIType.cstring, FFIType.cstring, FFIType.i32], returns: FFIType.i32 },
    });
    const cstring = (s: string) => Buffer.from(`${s}\0`);
    const current = libc.symbols.getenv(cstring(name));
    const found = current ? new CString(current).toString() : undefined;
    if (found === undefined) libc.symbols.setenv(cstring(name), cstring(value), 0);
    libc.close();
    return found ?? value;
  } catch (error) {
    log.warn(`[engram] could not set ${name} for onnxruntime (${error instanceof Error ? error.message : error}); set ${name}=1 in the environment to keep it from sending telemetry`);
    return value;
  }
}
