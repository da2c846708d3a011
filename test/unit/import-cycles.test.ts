/**
 * src/ has no import cycle: every pair of modules depends one way at most, type-only imports
 * included. A cycle makes a module's exports undefined while the other one loads, depending on which
 * of the two an entry point reaches first, and it usually means a shared piece sits in the wrong file.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../../src");

/** Relative module specifiers: `import … from`, `export … from`, `import "…"` and `import("…")`. */
const IMPORT = /(?:\bimport|\bexport)\s[^;]*?\bfrom\s*["'](\.[^"']+)["']|\bimport\s*\(?\s*["'](\.[^"']+)["']/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : /\.tsx?$/.test(name) ? [path] : [];
  });
}

function resolveModule(from: string, specifier: string): string | null {
  const base = resolve(dirname(from), specifier);
  return [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")].find((p) => existsSync(p) && statSync(p).isFile()) ?? null;
}

/** Each file of `root` with the files of `root` it imports. */
function importGraph(root: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(root)) {
    const imports = [...readFileSync(file, "utf8").matchAll(IMPORT)].map((m) => resolveModule(file, (m[1] ?? m[2])!));
    graph.set(file, imports.filter((p): p is string => p !== null && p.startsWith(root)));
  }
  return graph;
}

/** One cycle per back edge of a depth-first walk, as the path that closes it: none if and only if the graph is acyclic. */
function findCycles(graph: Map<string, string[]>): string[][] {
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const cycles: string[][] = [];
  const visit = (node: string) => {
    state.set(node, "open");
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") cycles.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(node, "done");
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

describe("import cycles", () => {
  test("the walk finds a cycle, a self-import, and none in a diamond", () => {
    const loop = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]]]);
    expect(findCycles(loop)).toEqual([["a", "b", "c", "a"]]);
    expect(findCycles(new Map([["a", ["a"]]]))).toEqual([["a", "a"]]);
    expect(findCycles(new Map([["a", ["b", "c"]], ["b", ["d"]], ["c", ["d"]], ["d", []]]))).toEqual([]);
  });

  test("the import reader sees type-only, re-exported, side-effect and dynamic imports", () => {
    const text = 'import type { A } from "./a";\nexport { B } from "./b.ts";\nimport "./c";\nconst d = await import("./d");\nimport {\n  E,\n} from "../e";';
    expect([...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2])).toEqual(["./a", "./b.ts", "./c", "./d", "../e"]);
  });

  test("src/ has none", () => {
    const graph = importGraph(SRC);
    expect(graph.size).toBeGreaterThan(100);
    expect(findCycles(graph).map((cycle) => cycle.map((p) => relative(SRC, p)).join(" → "))).toEqual([]);
  });
});
