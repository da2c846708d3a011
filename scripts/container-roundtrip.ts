/**
 * The HTTP half of scripts/container-check.sh, run with bun on the host against a running engram:
 *
 *   bun scripts/container-roundtrip.ts port                         a free loopback port
 *   bun scripts/container-roundtrip.ts health <url> [seconds]       waits for GET /health = 200
 *   bun scripts/container-roundtrip.ts store  <url> <state.json>    signed store, then recall it
 *   bun scripts/container-roundtrip.ts recall <url> <state.json>    the stored memory is still there
 *   bun scripts/container-roundtrip.ts replicas <urlA> <urlB>       a session made on A works on B, and back
 *   bun scripts/container-roundtrip.ts metrics <url> <token>        GET /metrics: 401 without the token, the counters with it
 *
 * `store` makes a fresh wallet, stores one memory and recalls it, and writes the key, the id and the
 * content to state.json; `recall` signs with the same key and checks the memory by id (GET) and by
 * recall. Requests are signed like a client: `x-wallet-auth: {address}:{ts}:{signature of
 * service-auth:{ts}}` (AUTH_MESSAGE_PREFIX overrides the prefix). `replicas` signs in once on A
 * (POST /auth/session) and uses only the Bearer token after that: it stores on A and reads the
 * memory by id and by recall on B, then stores on B and recalls on A. One line of result on stdout;
 * the exit code is 0 on success, 1 on a failed check, 2 on a usage error.
 */
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";

const [mode, url, arg] = process.argv.slice(2);
const prefix = process.env.AUTH_MESSAGE_PREFIX || "service-auth";

function fail(message: string): never {
  console.log(message);
  process.exit(1);
}

async function authHeader(key: Hex): Promise<string> {
  const account = privateKeyToAccount(key);
  const ts = Math.floor(Date.now() / 1000);
  return `${account.address}:${ts}:${await account.signMessage({ message: `${prefix}:${ts}` })}`;
}

async function call(key: Hex, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  return send(`${url}${path}`, method, { "x-wallet-auth": await authHeader(key) }, body);
}

async function send(target: string, method: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(target, {
    method,
    headers: { ...headers, ...(body !== undefined && { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed };
}

const brief = (body: unknown) => JSON.stringify(body).slice(0, 200);

interface State {
  key: Hex;
  id: string;
  content: string;
}

async function recallCheck(state: State): Promise<string> {
  const got = await call(state.key, "GET", `/v1/memories/${state.id}`);
  if (got.status !== 200 || got.body?.content !== state.content) fail(`GET /v1/memories/${state.id}: ${got.status} ${brief(got.body)}`);
  const recalled = await call(state.key, "POST", "/v1/recall", { query: "container round trip marker", limit: 5 });
  if (recalled.status !== 200) fail(`POST /v1/recall: ${recalled.status} ${brief(recalled.body)}`);
  const hit = (recalled.body.memories as { id: string; content: string }[]).find((m) => m.id === state.id);
  if (!hit || hit.content !== state.content) fail(`POST /v1/recall did not return memory ${state.id}: ${brief(recalled.body)}`);
  return `memory ${state.id} found by id and by recall`;
}

/** Stores a marker with the Bearer token on `from`, then finds it by id and by recall on `to`. */
async function across(bearer: Record<string, string>, from: string, to: string): Promise<string> {
  const content = `replica round trip marker ${crypto.randomUUID()}`;
  const stored = await send(`${from}/v1/store`, "POST", bearer, { content, memory_type: "project", importance: 0.9 });
  if (stored.status !== 201) fail(`POST ${from}/v1/store with the session token: ${stored.status} ${brief(stored.body)}`);
  const got = await send(`${to}/v1/memories/${stored.body.id}`, "GET", bearer);
  if (got.status !== 200 || got.body?.content !== content) fail(`GET ${to}/v1/memories/${stored.body.id} with the token from ${url}: ${got.status} ${brief(got.body)}`);
  const recalled = await send(`${to}/v1/recall`, "POST", bearer, { query: "replica round trip marker", limit: 10 });
  const hit = recalled.status === 200 && (recalled.body.memories as { id: string }[]).some((m) => m.id === stored.body.id);
  if (!hit) fail(`POST ${to}/v1/recall did not return ${stored.body.id}: ${recalled.status} ${brief(recalled.body)}`);
  return stored.body.id;
}

switch (mode) {
  case "port": {
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    console.log(server.port);
    server.stop(true);
    break;
  }
  case "health": {
    if (!url) break;
    const seconds = Number(arg ?? 60);
    const start = performance.now();
    let last = "no answer";
    while (performance.now() - start < seconds * 1000) {
      try {
        const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(3000) });
        const text = await res.text();
        if (res.status === 200) {
          console.log(`200 after ${((performance.now() - start) / 1000).toFixed(1)} s: ${text.slice(0, 160)}`);
          process.exit(0);
        }
        last = `${res.status} ${text.slice(0, 160)}`;
      } catch (error) {
        last = (error as Error).message;
      }
      await Bun.sleep(250);
    }
    fail(`no 200 from ${url}/health within ${seconds} s (last: ${last})`);
  }
  case "store": {
    if (!url || !arg) break;
    const key = generatePrivateKey();
    const content = `container round trip marker ${crypto.randomUUID()}`;
    const stored = await call(key, "POST", "/v1/store", { content, memory_type: "project", importance: 0.9 });
    if (stored.status !== 201 || typeof stored.body?.id !== "string") fail(`POST /v1/store: ${stored.status} ${brief(stored.body)}`);
    const state: State = { key, id: stored.body.id, content };
    await Bun.write(arg, JSON.stringify(state));
    console.log(`stored ${state.id} as ${privateKeyToAccount(key).address}; ${await recallCheck(state)}`);
    process.exit(0);
  }
  case "recall": {
    if (!url || !arg) break;
    console.log(await recallCheck((await Bun.file(arg).json()) as State));
    process.exit(0);
  }
  case "metrics": {
    if (!url || !arg) break;
    const refused = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(15_000) });
    if (refused.status !== 401) fail(`GET /metrics without the token: ${refused.status}, expected 401`);
    const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${arg}` }, signal: AbortSignal.timeout(15_000) });
    const text = await res.text();
    const requests = text.split("\n").filter((line) => line.startsWith("engram_http_requests_total{"));
    if (res.status !== 200 || requests.length === 0) fail(`GET /metrics with the token: ${res.status} ${text.slice(0, 160)}`);
    console.log(`401 without the token; with it ${requests.length} request series, e.g. ${requests[0]}`);
    process.exit(0);
  }
  case "replicas": {
    if (!url || !arg) break;
    const account = privateKeyToAccount(generatePrivateKey());
    const ts = Math.floor(Date.now() / 1000);
    const signature = await account.signMessage({ message: `${prefix}:${ts}` });
    const session = await send(`${url}/auth/session`, "POST", {}, { address: account.address, timestamp: ts, signature });
    if (session.status !== 200 || typeof session.body?.token !== "string") fail(`POST ${url}/auth/session: ${session.status} ${brief(session.body)}`);
    const bearer = { authorization: `Bearer ${session.body.token}` };
    const there = await across(bearer, url, arg);
    const back = await across(bearer, arg, url);
    console.log(`session from ${url} accepted by ${arg}; ${there} stored on the first, read and recalled on the second; ${back} the other way`);
    process.exit(0);
  }
}
if (mode !== "port") {
  console.error("usage: bun scripts/container-roundtrip.ts port | health <url> [seconds] | store <url> <state.json> | recall <url> <state.json> | replicas <urlA> <urlB>");
  process.exit(2);
}
