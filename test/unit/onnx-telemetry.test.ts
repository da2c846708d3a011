/**
 * src/embed/onnx-telemetry.ts: ORT_DISABLE_TELEMETRY reaches the C environment onnxruntime reads
 * (not only Bun's process.env), an operator's own value is kept, and every module that loads
 * onnxruntime imports it first. test/no-outbound.test.ts checks the effect on the running service.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");

/** What a fresh process sees for the variable after importing the module: [process.env, C getenv]. */
function seenAfterImport(env: Record<string, string | undefined>): [string | null, string | null] {
  const script = `
    import "./src/embed/onnx-telemetry.ts";
    import { dlopen, FFIType, CString } from "bun:ffi";
    const libc = dlopen("libc.so.6", { getenv: { args: [FFIType.cstring], returns: FFIType.ptr } });
    const p = libc.symbols.getenv(Buffer.from("ORT_DISABLE_TELEMETRY\\0"));
    console.log(JSON.stringify([process.env.ORT_DISABLE_TELEMETRY ?? null, p ? new CString(p).toString() : null]));`;
  const { ORT_DISABLE_TELEMETRY: _, ...base } = process.env;
  const run = Bun.spawnSync(["bun", "-e", script], { cwd: ROOT, env: { ...base, ...env }, stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(run.stderr.toString());
  return JSON.parse(run.stdout.toString());
}

describe.skipIf(process.platform !== "linux")("ORT_DISABLE_TELEMETRY", () => {
  test("is set in process.env and in the C environment when unset", () => {
    expect(seenAfterImport({})).toEqual(["1", "1"]);
  });

  test("an operator's value is kept", () => {
    expect(seenAfterImport({ ORT_DISABLE_TELEMETRY: "0" })).toEqual(["0", "0"]);
  });
});

test("every module that imports onnxruntime or transformers.js imports onnx-telemetry.ts before", () => {
  const dir = join(ROOT, "src/embed");
  const loaders = readdirSync(dir).filter((f) => /^import (?!type )[^;]*from "(onnxruntime-node|@huggingface\/transformers)"/m.test(readFileSync(join(dir, f), "utf8")));
  expect(loaders.length).toBeGreaterThan(0);
  for (const file of loaders) {
    const source = readFileSync(join(dir, file), "utf8");
    const guard = source.indexOf('import "./onnx-telemetry.ts"');
    const load = source.search(/^import (?!type )[^;]*from "(onnxruntime-node|@huggingface\/transformers)"/m);
    expect({ file, guardFirst: guard >= 0 && guard < load }).toEqual({ file, guardFirst: true });
  }
});
