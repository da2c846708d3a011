/**
 * Durability under `kill -9`: no acknowledged write is lost.
 *
 *   bun scripts/durability-kill9.ts [--rounds 3] [--writers 16] [--run-ms 3000] [--batch 20]
 *   STORE=redis REDIS_URL=redis://127.0.0.1:6379 bun scripts/durability-kill9.ts   (Redis engine)
 *
 * Each round starts the service (`bun scripts/start.ts`, 127.0.0.1, one data dir for all rounds),
 * runs concurrent POST /v1/store/batch writers, SIGKILLs the service while batches are in flight,
 * restarts it and checks, wallet by wallet (GET /v1/export), that every id of every 201 answer
 * of every round so far is there. Writes in flight at the kill may or may not be there (both are
 * correct: they were never acknowledged). Prints one row per round; exits 1 on any loss.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { freePort, sessionFor, startChild } from "./durability-child";
import { printTable } from "./bench/bench-util";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    writers: { type: "string", default: "16" },
    "run-ms": { type: "string", default: "3000" },
    batch: { type: "string", default: "20" },
  },
});
const ROUNDS = Number(values.rounds);
const WRITERS = Number(values.writers);
const RUN_MS = Number(values["run-ms"]);
const BATCH = Number(values.batch);

const dataDir = mkdtempSync(join(tmpdir(), "engram-kill9-"));
const port = freePort();
const acked = new Map<number, Set<string>>(); // writer → acknowledged ids
const rows: string[][] = [];
let totalLost = 0;
let sessions: { headers: Record<string, string> }[] = [];
const words = ["ledger", "harbor", "violet", "granite", "orbit", "meadow", "cipher", "falcon", "lantern", "quartz", "tundra", "willow"];

try {
  for (let round = 1; round <= ROUNDS; round++) {
    const service = await startChild(dataDir, port);
    if (round === 1) sessions = await Promise.all(Array.from({ length: WRITERS }, () => sessionFor(service.url)));
    let stop = false;
    let batchesAcked = 0;
    let memoriesAcked = 0;
    let inFlightAtKill = 0;
    const writer = async (w: number) => {
      for (let b = 0; !stop; b++) {
        const memories = Array.from({ length: BATCH }, (_, i) => {
          const tag = crypto.randomUUID();
          return { content: `Durability record ${tag} from writer ${w} round ${round} batch ${b} item ${i} mentions ${words[(w + b + i) % words.length]} and ${words[(w * 7 + i) % words.length]}.`, namespace: `w${w}` };
        });
        try {
          const res = await fetch(`${service.url}/v1/store/batch`, { method: "POST", headers: sessions[w]!.headers, body: JSON.stringify({ memories }) });
          if (res.status !== 201) throw new Error(`store/batch → ${res.status} ${await res.text()}`);
          const { ids } = (await res.json()) as { ids: string[] };
          const set = acked.get(w) ?? new Set<string>();
          for (const id of ids) set.add(id);
          acked.set(w, set);
          batchesAcked++;
          memoriesAcked += ids.length;
        } catch (error) {
          if (!stop) throw error;
          inFlightAtKill++;
          return;
        }
      }
    };
    const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
    await Bun.sleep(RUN_MS);
    stop = true;
    await service.kill9(); // mid-stream: every writer has a batch on the wire
    await Promise.allSettled(writers);

    const restarted = await startChild(dataDir, port);
    let lost = 0;
    let present = 0;
    for (let w = 0; w < WRITERS; w++) {
      const res = await fetch(`${restarted.url}/v1/export`, { headers: sessions[w]!.headers });
      if (!res.ok) throw new Error(`export → ${res.status} ${await res.text()}`);
      const stored = new Set(((await res.json()) as { memories: { id: string }[] }).memories.map((m) => m.id));
      present += stored.size;
      for (const id of acked.get(w) ?? []) if (!stored.has(id)) lost++;
    }
    await restarted.stop();
    totalLost += lost;
    const ackedSoFar = [...acked.values()].reduce((n, s) => n + s.size, 0);
    rows.push([String(round), String(batchesAcked), String(memoriesAcked), String(inFlightAtKill), String(ackedSoFar), String(present), String(present - ackedSoFar), String(lost)]);
  }
  console.log(`\nkill -9 durability (${process.env.STORE ?? "sqlite"} engine): ${ROUNDS} rounds × ${WRITERS} concurrent writers × batches of ${BATCH}, SIGKILL after ${RUN_MS} ms\n`);
  printTable(
    ["round", "batches acked", "memories acked", "batches in flight at kill", "acked so far", "present after restart", "committed, not acked", "lost acked"],
    rows,
  );
  console.log(totalLost === 0 ? "\nOK: 0 acknowledged writes lost" : `\nFAIL: ${totalLost} acknowledged writes lost`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(totalLost === 0 ? 0 : 1);
