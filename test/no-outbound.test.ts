/**
 * The service opens no network connection of its own: `bun scripts/start.ts` (what `bun run start`
 * runs) under strace, through a start, a store, a recall and an idle stretch long enough for a
 * library's background upload (onnxruntime's telemetry looked its host up ~10 s after start, then
 * every ~6 s), connects and sends nothing but loopback, and never to a DNS port. Skipped only where
 * strace cannot trace (not installed, or ptrace not permitted); .ci/run installs it.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { MODEL_CACHE_DIR, sendJson, TestWallet } from "./helpers/harness";

const ROOT = resolve(import.meta.dir, "..");
/** Watched from the spawn on: covers the telemetry's first lookup and at least one repeat. */
const WATCH_MS = 25_000;

/** Why strace cannot trace a child here, or undefined when it can. */
function straceUnavailable(): string | undefined {
  if (!Bun.which("strace")) return "strace is not installed (apt-get install strace)";
  const probe = Bun.spawnSync(["strace", "-f", "-qq", "-e", "trace=none", "-o", "/dev/null", "true"], { stderr: "pipe" });
  if (probe.exitCode !== 0) return `strace cannot trace here: ${probe.stderr.toString().trim() || `exit ${probe.exitCode}`}`;
  return undefined;
}

const LOOPBACK = [/^127\./, /^::1$/, /^::ffff:127\./, /^0\.0\.0\.0$/, /^::$/];
const isLoopback = (address: string) => LOOPBACK.some((re) => re.test(address));

/**
 * The trace's lines that reach past this machine: an AF_INET/AF_INET6 address that is not loopback
 * (in the call's arguments, or in the socket's endpoints `-yy` prints), or port 53 anywhere (a DNS
 * lookup, even through a resolver on a loopback address such as 127.0.0.53).
 */
function outboundLines(trace: string): string[] {
  return trace.split("\n").filter((line) => {
    if (/htons\(53\)|:53\]/.test(line)) return true;
    const addresses = [
      ...line.matchAll(/inet_addr\("([^"]+)"\)/g),
      ...line.matchAll(/inet_pton\(AF_INET6, "([^"]+)"/g),
      ...line.matchAll(/->\[?([0-9a-f.:]+?)\]?:\d+\]/gi),
    ].map((m) => m[1]!);
    return addresses.some((a) => !isLoopback(a));
  });
}

function freePort(): number {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", reusePort: false, fetch: () => new Response() });
  const port = server.port!;
  server.stop(true);
  return port;
}

const dir = mkdtempSync(join(tmpdir(), "engram-no-outbound-"));
let tracer: Subprocess | undefined;

/** The traced service (strace's child), found by its parent's pid. */
function servicePid(): number | undefined {
  const out = Bun.spawnSync(["ps", "-o", "pid=", "--ppid", String(tracer!.pid)]).stdout.toString();
  return out.split("\n").map((s) => Number(s.trim())).find((n) => n > 0);
}

afterAll(async () => {
  if (tracer && tracer.exitCode === null) {
    const pid = servicePid();
    if (pid) process.kill(pid, "SIGKILL");
    tracer.kill("SIGKILL");
    await tracer.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

test("outboundLines flags DNS and non-loopback addresses, not loopback", () => {
  const dns = `41 connect(17<UDP:[0.0.0.0:0]>, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.255.255.53")}, 16) = 0`;
  const dnsSend = `41 sendto(17<UDP:[10.0.0.2:40000->127.0.0.53:53]>, "\\1\\2", 50, MSG_NOSIGNAL, NULL, 0) = 50`;
  const remote = `42 connect(9<TCP:[1]>, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "2603:1030::1", &sin6_addr), sin6_scope_id=0}, 28) = -1 EINPROGRESS`;
  const local = `43 connect(9<TCP:[2]>, {sa_family=AF_INET, sin_port=htons(6379), sin_addr=inet_addr("127.0.0.1")}, 16) = 0`;
  const unix = `44 connect(5<UNIX-STREAM:[3]>, {sa_family=AF_UNIX, sun_path="/run/x.sock"}, 110) = 0`;
  expect(outboundLines([dns, dnsSend, remote, local, unix].join("\n"))).toEqual([dns, dnsSend, remote]);
});

const unavailable = straceUnavailable();
if (unavailable) console.warn(`[no-outbound] skipped: ${unavailable}`);

test.skipIf(unavailable !== undefined)(
  `start, store, recall and ${WATCH_MS / 1000} s idle open no connection but loopback${unavailable ? ` (skipped: ${unavailable})` : ""}`,
  async () => {
    const started = Date.now();
    const port = freePort();
    const url = `http://127.0.0.1:${port}`;
    const traceFile = join(dir, "service.trace");
    // The service's defaults (the embedded engine, the default local model), and nothing that asks it
    // to be quiet: not the ORT_DISABLE_TELEMETRY the test runner itself has from the embed modules.
    const env = { PATH: process.env.PATH, HOME: process.env.HOME };
    tracer = Bun.spawn(
      ["strace", "-f", "-qq", "-yy", "-e", "trace=connect,sendto,sendmsg,sendmmsg", "-o", traceFile, "bun", join(ROOT, "scripts/start.ts")],
      {
        env: { ...env, STORE: "sqlite", PORT: String(port), HOST: "127.0.0.1", DATA_DIR: join(dir, "data"), MODEL_CACHE_DIR },
        stdout: "ignore",
        stderr: "inherit",
      },
    );
    for (;;) {
      if ((await fetch(`${url}/health`).catch(() => null))?.ok) break;
      if (tracer.exitCode !== null) throw new Error(`the service exited with code ${tracer.exitCode} before answering /health`);
      if (Date.now() - started > 20_000) throw new Error("the service did not answer /health within 20 s");
      await Bun.sleep(100);
    }
    const wallet = new TestWallet();
    const auth = async () => ({ "x-wallet-auth": await wallet.header(Math.floor(Date.now() / 1000)) });
    const stored = await sendJson(fetch, `${url}/v1/store`, "POST", { content: "The deploy key rotates every Friday" }, await auth());
    expect(stored.status).toBe(201);
    const recalled = await sendJson(fetch, `${url}/v1/recall`, "POST", { query: "when does the deploy key rotate?" }, await auth());
    expect(recalled.status).toBe(200);
    expect(JSON.stringify(recalled.body)).toContain(stored.body.id);

    await Bun.sleep(Math.max(0, WATCH_MS - (Date.now() - started)));
    expect(tracer.exitCode).toBeNull(); // still running: the watch covered a live service
    process.kill(servicePid()!, "SIGTERM");
    await tracer.exited;
    expect(outboundLines(readFileSync(traceFile, "utf8"))).toEqual([]);
  },
  WATCH_MS + 15_000,
);
