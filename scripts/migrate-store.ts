/**
 * Copies a whole store into another one, either engine to either engine:
 *
 *   bun run migrate-store --from sqlite:./data --to redis://127.0.0.1:6379
 *   bun run migrate-store --from redis://127.0.0.1:6379 --to sqlite:./data-copy
 *
 * A store is `sqlite:<DATA_DIR>` (the embedded engine's directory) or a `redis://` / `rediss://` URL
 * (keys under `engram:`, as the service uses), which may name a Redis Cluster as REDIS_URL does (any node,
 * or seed nodes separated by commas). Stop the service on the source first. Copies every wallet
 * record (address → user id, free-tier calls used), every memory (soft-deleted ones too; expired ones
 * are not: no engine shows them) with its vector byte for byte, content hash, history and access
 * counts, and every relation; binds the target to the source's embedding model (a target bound to
 * another one is refused). Then counts memories, relations and history entries per wallet on both
 * sides and prints the table (stdout); exits 1 when they differ.
 *
 * Resumable: interrupted, run the same command again; it continues after the last batch the target
 * committed and never duplicates (migrate-store-checkpoint.ts: a file in the target's DATA_DIR, else
 * the source's, else the working directory).
 */
import { mkdirSync, existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { copyStore, CopyRefused, type CopyEvent, type CopyReport } from "../src/domain/copy-store";
import type { TransferableStore } from "../src/domain/store-transfer";
import { SqliteStore } from "../src/store/sqlite/sqlite-store";
import { RedisStore } from "../src/store/redis/redis-store";
import { redactUrl } from "../src/store/redis/client";
import { MigrateCheckpoint } from "./migrate-store-checkpoint";

const USAGE = "usage: bun run migrate-store --from <store> --to <store>   (a store: sqlite:<DATA_DIR> or redis://host:port)";
/**
 * How long one Redis command of the copy may wait for its reply: a batch of 500 memories is one
 * MULTI that Redis indexes as it applies it (about 0.5 s at the measured 947 µs per memory, more
 * on a busy server), far longer than a request's bound (REDIS_COMMAND_TIMEOUT_MS).
 */
const COPY_COMMAND_TIMEOUT_MS = 60_000;

interface StoreSpec {
  /** names the store in messages and the checkpoint (no password) */
  description: string;
  /** the embedded store's directory (null for Redis) */
  dataDir: string | null;
  open(role: "source" | "target"): Promise<TransferableStore>;
}

function parseStore(text: string, flag: string): StoreSpec {
  if (text.startsWith("sqlite:")) {
    const dir = resolve(text.slice("sqlite:".length) || ".");
    return {
      description: `sqlite:${dir}`,
      dataDir: dir,
      open: async (role) => {
        if (role === "source" && !existsSync(join(dir, "engram.sqlite"))) throw new CopyRefused(`${flag}: no store in ${dir} (engram.sqlite is missing): give the DATA_DIR the service ran with`);
        mkdirSync(dir, { recursive: true });
        return new SqliteStore(dir);
      },
    };
  }
  if (/^rediss?:\/\//.test(text)) return { description: redactUrl(text), dataDir: null, open: () => RedisStore.connect(text, { keyPrefix: "engram:", commandTimeoutMs: COPY_COMMAND_TIMEOUT_MS }) };
  throw new CopyRefused(`${flag}: "${text}" is neither sqlite:<DATA_DIR> nor a redis:// URL\n${USAGE}`);
}

/** Progress on stderr, at most a few times a second, and whenever the copy moves to the next wallet. */
function progressPrinter(): (event: CopyEvent) => void {
  const started = performance.now();
  let last = 0;
  let lastUser = 0;
  const line = (text: string) => process.stderr.write(`\r[migrate-store] ${text}   `);
  return (event) => {
    if (event.kind === "note") return void process.stderr.write(`\n[migrate-store] ${event.message}\n`);
    if (event.kind === "resume") return void process.stderr.write(`[migrate-store] resuming: ${event.finished} wallets copied, ${event.started} in progress\n`);
    if (event.kind === "wallets") return void process.stderr.write(`[migrate-store] ${event.count} wallet records copied\n`);
    const now = performance.now();
    const final = event.kind === "memories" ? event.copied === event.total : event.user === event.users;
    const nextWallet = event.kind === "memories" && event.user !== lastUser;
    if (now - last < 250 && !final && !nextWallet) return;
    last = now;
    if (event.kind === "memories") lastUser = event.user;
    if (event.kind === "memories") {
      const rate = event.copied / ((now - started) / 1000);
      const pct = event.total ? Math.floor((100 * event.copied) / event.total) : 100;
      line(`copying: wallet ${event.user}/${event.users}, ${event.copied}/${event.total} memories (${pct}%), ${Math.round(rate)} memories/s`);
    } else line(`verifying: wallet ${event.user}/${event.users}`);
  };
}

function printTable(report: CopyReport): void {
  const cell = (a: number, b: number) => (a === b ? String(a) : `${a} ≠ ${b}`);
  const rows = report.users.map((u) => [
    u.address ?? `(user ${u.user_id})`,
    cell(u.source.memories, u.target.memories),
    cell(u.source.relations, u.target.relations),
    cell(u.source.history, u.target.history),
    cell(u.source.free_calls_used, u.target.free_calls_used),
    u.equal ? "ok" : "DIFFERS",
  ]);
  const sum = (side: "source" | "target", key: "memories" | "relations" | "history" | "free_calls_used") => report.users.reduce((n, u) => n + u[side][key], 0);
  const total = ["total", ...(["memories", "relations", "history", "free_calls_used"] as const).map((k) => cell(sum("source", k), sum("target", k))), report.ok ? "ok" : "DIFFERS"];
  const table = [["wallet", "memories", "relations", "history", "free calls", "check"], ...rows, total];
  const widths = table[0]!.map((_, c) => Math.max(...table.map((r) => r[c]!.length)));
  const format = (r: string[]) => r.map((v, c) => (c === 0 ? v.padEnd(widths[c]!) : v.padStart(widths[c]!))).join("  ");
  process.stdout.write([format(table[0]!), ...rows.map(format), format(total)].join("\n") + "\n");
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { from: { type: "string" }, to: { type: "string" } } });
  if (!values.from || !values.to) throw new CopyRefused(USAGE);
  const from = parseStore(values.from, "--from");
  const to = parseStore(values.to, "--to");
  if (from.description === to.description) throw new CopyRefused("--from and --to name the same store");
  const source = await from.open("source");
  const target = await to.open("target").catch(async (error) => {
    await source.close();
    throw error;
  });
  // beside the embedded store (a container's volume), else in the working directory
  const checkpoint = new MigrateCheckpoint(from.description, to.description, to.dataDir ?? from.dataDir ?? ".");
  try {
    process.stderr.write(`[migrate-store] ${from.description} → ${to.description} (checkpoint: ${checkpoint.path})\n`);
    const started = performance.now();
    const report = await copyStore(source, target, checkpoint, { report: progressPrinter() });
    const seconds = (performance.now() - started) / 1000;
    process.stderr.write(`\n[migrate-store] ${report.copied} memories copied in ${seconds.toFixed(1)} s (${Math.round(report.copied / seconds)} memories/s)\n`);
    printTable(report);
    if (report.missingWallets.length > 0) process.stderr.write(`[migrate-store] wallet records missing on the target: ${report.missingWallets.join(", ")}\n`);
    // the copy ran to its end: a later run starts from the beginning (and replaces what it copies again)
    checkpoint.remove();
    if (!report.ok) {
      process.stderr.write("[migrate-store] the counts differ (table above): was the source written to meanwhile? Stop the service on it and run the copy again\n");
      return 1;
    }
    process.stderr.write(`[migrate-store] done: every wallet's counts match${report.model ? `; the target is bound to ${report.model.id}` : ""}\n`);
    return 0;
  } finally {
    await Promise.all([source.close(), target.close()]);
  }
}

try {
  process.exitCode = await main();
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`\n[migrate-store] ${error instanceof CopyRefused ? "" : "stopped: "}${message}\n`);
  if (!(error instanceof CopyRefused)) process.stderr.write("[migrate-store] run the same command again to continue where it stopped\n");
  process.exitCode = 1;
}
