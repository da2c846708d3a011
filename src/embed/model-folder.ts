import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * A locally built model folder in the HF layout transformers.js loads (config.json,
 * tokenizer.json, tokenizer_config.json, onnx/model.onnx), written into a temp folder and
 * renamed into place, so a reader never sees half a model and two builders (two workers
 * starting together) never corrupt each other.
 */

const REQUIRED_FILES = ["config.json", "tokenizer.json", "tokenizer_config.json", "onnx/model.onnx"];

export interface FolderBuildResult {
  dir: string;
  built: boolean;
  seconds: number;
  onnxBytes: number;
}

/** The files of a model folder: text files by relative path, and the ONNX graph. */
export interface ModelFiles {
  text: Record<string, string>;
  onnx: Uint8Array;
}

/** True if the folder holds every file and its config.json records this build version. */
export function isFolderCurrent(dir: string, buildVersion: number): boolean {
  if (!REQUIRED_FILES.every((f) => existsSync(join(dir, f)))) return false;
  try {
    const config = JSON.parse(readFileSync(join(dir, "config.json"), "utf8")) as { engram?: { build_version?: number } };
    return config.engram?.build_version === buildVersion;
  } catch {
    return false;
  }
}

export interface FolderBuild {
  dir: string;
  buildVersion: number;
  /** Produces the folder's files (the slow part). */
  files: () => Promise<ModelFiles> | ModelFiles;
  log: (message: string) => void;
}

/** Builds the folder unless a current one is already there. */
export async function ensureModelFolder(build: FolderBuild): Promise<FolderBuildResult> {
  if (isFolderCurrent(build.dir, build.buildVersion)) {
    return { dir: build.dir, built: false, seconds: 0, onnxBytes: statSync(join(build.dir, "onnx/model.onnx")).size };
  }
  return buildModelFolder(build, false);
}

/** Always builds. replace=false keeps a current folder that appeared meanwhile (a concurrent build). */
export async function buildModelFolder(build: FolderBuild, replace = true): Promise<FolderBuildResult> {
  const started = performance.now();
  removeStaleTemps(build.dir);
  const files = await build.files();
  const tmp = `${build.dir}.tmp-${uniqueSuffix()}`;
  mkdirSync(join(tmp, "onnx"), { recursive: true });
  try {
    build.log(`writing onnx (${(files.onnx.length / 1e6).toFixed(1)} MB)…`);
    for (const [name, content] of Object.entries(files.text)) await Bun.write(join(tmp, name), content);
    await Bun.write(join(tmp, "onnx/model.onnx"), files.onnx);
    swapInto(tmp, build.dir, build.buildVersion, replace);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const seconds = (performance.now() - started) / 1000;
  build.log(`done: ${build.dir} in ${seconds.toFixed(1)} s`);
  return { dir: build.dir, built: true, seconds, onnxBytes: files.onnx.length };
}

/**
 * Moves the finished temp folder to its final name. Without `replace`, a current folder from a
 * concurrent builder is kept: it is as good as ours (same bytes).
 */
function swapInto(tmp: string, dir: string, buildVersion: number, replace: boolean): void {
  if (existsSync(dir)) {
    if (!replace && isFolderCurrent(dir, buildVersion)) return;
    const old = `${dir}.old-${uniqueSuffix()}`;
    renameSync(dir, old); // rename cannot replace a non-empty folder: move the old one aside first
    rmSync(old, { recursive: true, force: true });
  }
  try {
    renameSync(tmp, dir);
  } catch (err) {
    if (!isFolderCurrent(dir, buildVersion)) throw err;
  }
}

/** Temp folders left by a build that was killed; builds take seconds, so an hour-old one is dead. */
function removeStaleTemps(dir: string): void {
  const parent = dirname(dir);
  if (!existsSync(parent)) return;
  const prefix = `${basename(dir)}.tmp-`;
  for (const entry of readdirSync(parent)) {
    const path = join(parent, entry);
    if (entry.startsWith(prefix) && Date.now() - statSync(path).mtimeMs > 3_600_000) {
      rmSync(path, { recursive: true, force: true });
    }
  }
}

/** Two builds may run at once, even in one process (two workers starting together). */
function uniqueSuffix(): string {
  return `${process.pid}-${crypto.randomUUID().slice(0, 8)}`;
}
