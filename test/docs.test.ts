/** The documentation: README.md and docs/*.md link only to what exists, and docs/api.md lists the OpenAPI document's routes. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { anchorReader, diaryWording, linkProblem, readMarkdown } from "./helpers/doc-links";
import { startService, type TestService } from "./helpers/harness";

const root = resolve(import.meta.dir, "..");
const documents = ["README.md", ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
const read = (path: string) => readFileSync(join(root, path), "utf8");

describe("the checks themselves", () => {
  const anchorsOf = anchorReader();
  const problem = (href: string) => linkProblem(root, join(root, "docs/api.md"), href, anchorsOf);

  test("GitHub anchors: code, punctuation and repeated headings", () => {
    const { anchors } = readMarkdown("# A `GET /v1/memories/{id}` route\n## Tags & `session_id`\n## Same\n## Same\n```\n# not a heading\n```\n");
    expect([...anchors]).toEqual(["a-get-v1memoriesid-route", "tags--session_id", "same", "same-1"]);
  });

  test("links and images are found outside code only", () => {
    const { links } = readMarkdown("[a](x.md) ![b](y.png) `[c](z.md)`\n```\n[d](w.md)\n```\n");
    expect(links).toEqual(["x.md", "y.png"]);
  });

  test("a missing file or anchor, a link out of the repository and a private host are refused", () => {
    expect(problem("configuration.md#settings")).toBeNull();
    expect(problem("#authentication")).toBeNull();
    expect(problem("https://bun.sh")).toBeNull();
    expect(problem("configuration.md#no-such-heading")).toContain("no heading");
    expect(problem("#no-such-heading")).toContain("no heading");
    expect(problem("nowhere.md")).toContain("does not exist");
    expect(problem("../../shared/spec/memory-service-spec.md")).toBe("leaves the repository");
    expect(problem("../.env.example")).toContain("climbs out");
    expect(problem("/etc/hosts")).toContain("absolute path");
    expect(problem("http://localhost:8787/health")).toContain("not a public host");
    expect(problem("http://10.0.0.5/x")).toContain("not a public host");
    expect(problem("file:///etc/hosts")).toContain("only relative links");
  });

  test("diary wording is found; the product's sessions are not", () => {
    for (const diary of ["the fifth session's figures", "measured this session", "see issue 14", "Issue #25", "earlier in the session", "other engineers' builds", "another helper", "in session 3"]) {
      expect(diaryWording(diary)).toHaveLength(1);
    }
    for (const fine of ["a session JWT", "the session key", "filter by session_id", "this session token", "RealMem's session level", "sessionStorage", "no MCP session id", "an issue of the client", "session 52.9 → 52.7"]) {
      expect(diaryWording(fine)).toEqual([]);
    }
  });
});

describe("README.md and docs/", () => {
  const anchorsOf = anchorReader();

  test.each(documents)("%s: every link and anchor resolves inside the repository or is a public URL", (path) => {
    const file = join(root, path);
    const problems = readMarkdown(read(path))
      .links.map((href) => [href, linkProblem(root, file, href, anchorsOf)])
      .filter(([, problem]) => problem !== null);
    expect(problems).toEqual([]);
  });

  test.each(documents)("%s: no diary wording (sessions of work, issue numbers)", (path) => {
    expect(diaryWording(read(path))).toEqual([]);
  });

  test("README.md is the front door: at most 250 lines, linking every page of docs/", () => {
    const readme = read("README.md");
    expect(readme.split("\n").length).toBeLessThanOrEqual(250);
    const linked = new Set(readMarkdown(readme).links.map((href) => href.split("#")[0]));
    expect(documents.filter((d) => d !== "README.md" && !linked.has(d))).toEqual([]);
  });
});

describe("docs/api.md and the OpenAPI document", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService();
  });
  afterAll(() => service.stop());

  test("list the same routes", async () => {
    const openapi = (await (await fetch(`${service.url}/swagger/json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const served = Object.entries(openapi.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`));
    const documented = [...read("docs/api.md").matchAll(/^#{2,4} `([A-Z]+) (\/[^`\s]*)`$/gm)].map((m) => `${m[1]} ${m[2]}`);
    expect(served.length).toBeGreaterThan(30);
    expect([...documented].sort()).toEqual([...served].sort());
  });
});
