/**
 * The service as a child process on 127.0.0.1, for scripts/durability-kill9.ts and scripts/soak.ts:
 * start (waiting for /health), kill (SIGKILL or SIGTERM), RSS from /proc, and wallets with
 * session tokens (issued once; the JWT secret lives in DATA_DIR, so tokens survive a restart).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { spawnProbed } from "./bench/probe-client";
import type { ProbeAnswer } from "./bench/memory-probe";

const root = resolve(import.meta.dir, "..");

export interface ChildService {
  url: string;
  pid: number;
  /** SIGKILL: no shutdown hook runs */
  kill9(): Promise<void>;
  stop(): Promise<void>;
  rssBytes(): number;
  /** what the anonymous memory is made of (scripts/bench/memory-probe.ts); with `startChild(…, { probe: true })` only */
  probe?: (gc?: boolean) => Promise<ProbeAnswer>;
}

export async function startChild(dataDir: string, port: number, env: Record<string, string> = {}, { probe = false } = {}): Promise<ChildService> {
  const url = `http://127.0.0.1:${port}`;
  const options = {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, FREE_TIER_CALLS: "100000000", ...env },
    stdout: "ignore",
    stderr: "inherit",
  } as const;
  const probed = probe ? spawnProbed("scripts/start.ts", options) : null;
  const child = probed?.process ?? Bun.spawn(["bun", "scripts/start.ts"], options);
  const started = performance.now();
  for (;;) {
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {}
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode} before it was healthy`);
    if (performance.now() - started > 120_000) throw new Error("service did not become healthy in 120 s");
    await Bun.sleep(20);
  }
  const killWith = async (signal: "SIGKILL" | "SIGTERM") => {
    child.kill(signal);
    await child.exited;
  };
  return {
    url,
    pid: child.pid,
    kill9: () => killWith("SIGKILL"),
    stop: () => killWith("SIGTERM"),
    ...(probed && { probe: probed.probe }),
    rssBytes: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    },
  };
}

export const freePort = () => 20000 + Math.floor(Math.random() * 20000);

/** A new wallet and its session token (Authorization: Bearer). */
export async function sessionFor(url: string): Promise<{ wallet: string; headers: Record<string, string> }> {
  const account = privateKeyToAccount(generatePrivateKey());
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = await account.signMessage({ message: `service-auth:${timestamp}` });
  const res = await fetch(`${url}/auth/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ address: account.address, timestamp, signature }),
  });
  if (!res.ok) throw new Error(`POST /auth/session → ${res.status} ${await res.text()}`);
  const { token } = (await res.json()) as { token: string };
  return { wallet: account.address, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } };
}
