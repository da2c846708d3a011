/**
 * Start-up time and store latency of the real service over HTTP (embedded engine).
 *
 *   bun scripts/bench/service.ts [--stores 500]
 *
 * Starts `bun scripts/start.ts` as a child process on a fresh data dir, times it until /health
 * answers 200, then stores memories one at a time (and in batches of 100) and prints a table.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { percentiles, printTable, sentence } from "./bench-util";

const { values } = parseArgs({ options: { stores: { type: "string", default: "500" } } });
const STORES = Number(values.stores);
const root = resolve(import.meta.dir, "../..");
const dataDir = mkdtempSync(join(tmpdir(), "engram-bench-"));
const port = 18000 + Math.floor(Math.random() * 1000);
const url = `http://127.0.0.1:${port}`;

const t0 = performance.now();
const child = Bun.spawn(["bun", "scripts/start.ts"], {
  cwd: root,
  env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, FREE_TIER_CALLS: "1000000" },
  stdout: "ignore",
  stderr: "inherit",
});
for (;;) {
  try {
    if ((await fetch(`${url}/health`)).ok) break;
  } catch {}
  await Bun.sleep(5);
  if (performance.now() - t0 > 120_000) throw new Error("service did not become healthy in 120 s; run `bun run start` to see why");
}
const startupMs = performance.now() - t0;

const account = privateKeyToAccount(generatePrivateKey());
const ts = Math.floor(Date.now() / 1000);
const session = await fetch(`${url}/auth/session`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ address: account.address, timestamp: ts, signature: await account.signMessage({ message: `service-auth:${ts}` }) }),
}).then((r) => r.json() as Promise<{ token: string }>);
const headers = { "content-type": "application/json", authorization: `Bearer ${session.token}` };

const single: number[] = [];
for (let i = 0; i < STORES; i++) {
  const started = performance.now();
  const res = await fetch(`${url}/v1/store`, { method: "POST", headers, body: JSON.stringify({ content: sentence(i) }) });
  if (res.status !== 201) throw new Error(`store answered ${res.status}: ${await res.text()}`);
  single.push(performance.now() - started);
  if (i % 100 === 0) process.stderr.write(`\r[bench] single stores ${i}/${STORES}`);
}
const batch: number[] = [];
for (let b = 0; b < 10; b++) {
  const memories = Array.from({ length: 100 }, (_, i) => ({ content: sentence(100_000 + b * 100 + i) }));
  const started = performance.now();
  const res = await fetch(`${url}/v1/store/batch`, { method: "POST", headers, body: JSON.stringify({ memories }) });
  if (res.status !== 201) throw new Error(`store/batch answered ${res.status}: ${await res.text()}`);
  batch.push(performance.now() - started);
}
process.stderr.write("\n");
child.kill();
await child.exited;
rmSync(dataDir, { recursive: true, force: true });

const s = percentiles(single);
const b = percentiles(batch);
printTable(
  ["measure", "value"],
  [
    ["start-up to /health 200 (model cached)", `${startupMs.toFixed(0)} ms`],
    [`POST /v1/store, ${STORES} sequential: p50 / p95 / p99`, `${s.p50.toFixed(2)} / ${s.p95.toFixed(2)} / ${s.p99.toFixed(2)} ms`],
    ["POST /v1/store/batch (100 items): p50 / p95", `${b.p50.toFixed(1)} / ${b.p95.toFixed(1)} ms (${(100_000 / b.p50).toFixed(0)} memories/s)`],
  ],
);
