import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";

/** Every setting the service reads stays documented and reachable from compose. */
const root = resolve(import.meta.dir, "..");
const read = (path: string) => Bun.file(resolve(root, path)).text();

/** The variables of src/config.ts's EnvSchema, read from the source (the schema is not exported). */
async function configVariables(): Promise<string[]> {
  const source = await read("src/config.ts");
  const start = source.indexOf("const EnvSchema = t.Object({");
  const end = source.indexOf("\n});", start);
  expect(start).toBeGreaterThan(-1);
  return [...source.slice(start, end).matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!);
}

/** Set by the Dockerfile for the container's layout; compose does not pass them. */
const IMAGE_FIXED = new Set(["PORT", "HOST", "DATA_DIR", "MODEL_CACHE_DIR"]);

describe("deployment settings", () => {
  test("the schema is found", async () => {
    const vars = await configVariables();
    expect(vars).toContain("PORT");
    expect(vars).toContain("PAYMENTS");
    expect(vars.length).toBeGreaterThan(20);
  });

  test("every config variable is in .env.example", async () => {
    const example = await read(".env.example");
    const listed = new Set([...example.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]!));
    expect((await configVariables()).filter((v) => !listed.has(v))).toEqual([]);
  });

  test("every config variable is in the table of docs/configuration.md", async () => {
    const doc = await read("docs/configuration.md");
    const start = doc.indexOf("## Settings");
    expect(start).toBeGreaterThan(-1);
    const table = doc.slice(start, doc.indexOf("\n## ", start + 1));
    const rows = table.split("\n").filter((line) => line.startsWith("| `"));
    const named = new Set(rows.flatMap((row) => [...row.split(" | ")[0]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!)));
    expect((await configVariables()).filter((v) => !named.has(v))).toEqual([]);
  });

  test("compose passes every other config variable to the service, each with a default or empty", async () => {
    const compose = await read("docker-compose.yml");
    const service = compose.slice(compose.indexOf("  engram:"), compose.indexOf("\n  proxy:"));
    const start = service.indexOf("    environment:\n");
    expect(start).toBeGreaterThan(-1);
    // the block runs until the service's next key (4 spaces of indent)
    const rest = service.slice(start + "    environment:\n".length);
    const environment = rest.slice(0, rest.search(/^ {4}[a-z_]+:/m));
    const passed = new Map([...environment.matchAll(/^ {6}([A-Z][A-Z0-9_]+): (.*)$/gm)].map((m) => [m[1]!, m[2]!]));
    const missing = (await configVariables()).filter((v) => !IMAGE_FIXED.has(v) && !passed.has(v));
    expect(missing).toEqual([]);
    for (const [name, value] of passed) {
      if (name === "STORE") continue;
      expect(value).toMatch(new RegExp(`^\\$\\{${name}:-[^}]*\\}$`));
    }
  });

  test("replicas publish no host port (they would clash when scaled); the proxy publishes ENGRAM_PORT", async () => {
    const compose = await read("docker-compose.yml");
    const engram = compose.slice(compose.indexOf("  engram:"), compose.indexOf("\n  proxy:"));
    const proxy = compose.slice(compose.indexOf("\n  proxy:"), compose.indexOf("\n  redis:"));
    expect(engram).not.toMatch(/^ {4}ports:/m);
    expect(proxy).toContain('- "${ENGRAM_PORT:-8787}:8787"');
    expect(proxy).toContain("./deploy/haproxy.cfg:");
    expect(await read("deploy/haproxy.cfg")).toMatch(/server-template engram- \S+ engram:8787/);
  });

  test("the Redis health check needs PONG (an error reply such as LOADING exits 0 from redis-cli)", async () => {
    const compose = await read("docker-compose.yml");
    const redis = compose.slice(compose.indexOf("\n  redis:"));
    expect(redis).toMatch(/redis-cli PING \| grep -qx PONG|redis-cli -e PING/);
    expect(redis).toContain("${REDIS_IMAGE:-redis:8}");
  });

  test("the cluster compose file passes the same engram settings as docker-compose.yml and creates the cluster once", async () => {
    const environmentOf = (compose: string) => {
      const service = compose.slice(compose.indexOf("  engram:"), compose.indexOf("\n  proxy:"));
      const rest = service.slice(service.indexOf("    environment:\n") + "    environment:\n".length);
      return [...rest.slice(0, rest.search(/^ {4}[a-z_]+:/m)).matchAll(/^ {6}([A-Z][A-Z0-9_]+): (.*)$/gm)].map((m) => `${m[1]}=${m[2]}`);
    };
    const single = environmentOf(await read("docker-compose.yml"));
    const cluster = await read("docker-compose.cluster.yml");
    const differing = environmentOf(cluster).filter((line) => !single.includes(line));
    expect(differing).toEqual(["REDIS_URL=${REDIS_URL:-redis://redis-1:6379}"]);
    expect(single.filter((line) => !environmentOf(cluster).includes(line))).toEqual(["REDIS_URL=${REDIS_URL:-redis://redis:6379}"]);
    for (const node of [1, 2, 3, 4, 5, 6]) expect(cluster).toContain(`--cluster-announce-hostname redis-${node} `);
    expect(cluster).toMatch(/redis-cli PING \| grep -qx PONG/);
    expect(cluster).toContain("--cluster-replicas 1 --cluster-yes");
    expect(cluster).toContain("--appendonly yes --appendfsync everysec --maxmemory-policy noeviction");
  });
});
