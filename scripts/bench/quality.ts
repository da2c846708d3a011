/**
 * Retrieval quality as agents meet it: memories stored over time, questions asked in sequence
 * against the same store (so access counts build up as in real use), all over HTTP.
 *
 *   bun scripts/bench/quality.ts [--datasets realmem,facts,paraphrase] [--scales 1k,10k] [--personas 10]
 *                                [--engine sqlite|redis] [--seed 1]
 *
 * Data sets (realmem: one wallet per conversation; facts, paraphrase: one wallet each):
 *  - realmem: the public RealMem conversations (../shared/datasets/realmem, read in place). Every
 *    dialogue turn is stored with the service clock at its session's date; each query turn is asked
 *    before it is stored. Hit = a returned memory is an evidence turn (turn level) or any turn of
 *    an evidence session (session level). At 10k, other personas' turns are stored first as
 *    distractors until the wallet holds 10,000 memories.
 *  - facts: the hand-written target facts of quality-set.ts (preferences, decisions, projects…)
 *    among synthetic distractors on the same topics (synthetic.ts), then one query per target.
 *  - paraphrase: the hand-written memories of paraphrase-set.ts, each asked for by a question that
 *    shares no search term with it (so /v1/search cannot find it: what recall scores there comes
 *    from the vector), among the set's hard distractors (same person or topic, sharing words with
 *    the question) and synthetic ones up to the scale, then one question per memory.
 *
 * Methods, each with limit 10: `/v1/recall` with access counting on (the real service), the same
 * with access counting off (the store's recordAccess disabled: the counterfactual the feedback
 * loop is measured against), and recall's two parts: the free `/v1/search` (BM25, keyword only)
 * and `vector only` (the engine's nearest neighbours by cosine). Each setting gets a fresh store.
 * Prints recall@1/5/10 and MRR@10 per data set, scale and method.
 */
import { parseArgs } from "node:util";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import type { Embedder } from "../../src/embed/embedder.ts";
import { LIMITS } from "../../src/domain/memory.ts";
import { loadRealMem, type Persona } from "./realmem.ts";
import { QUALITY_SET } from "./quality-set.ts";
import { PARAPHRASE_SET } from "./paraphrase-set.ts";
import { prng, syntheticMemory } from "./synthetic.ts";
import { printTable, startBenchEmbedder } from "./bench-util.ts";
import { MODEL_CACHE_DIR, startClockedService, type ClockedService } from "./clocked-service.ts";

const { values: args } = parseArgs({
  options: {
    datasets: { type: "string", default: "realmem,facts,paraphrase" },
    scales: { type: "string", default: "1k,10k" },
    personas: { type: "string", default: "10" },
    engine: { type: "string", default: "sqlite" },
    seed: { type: "string", default: "1" },
  },
});
const log = (m: string) => console.error(`[quality] ${m}`);
const cacheDir = MODEL_CACHE_DIR;
const LIMIT = 10;

/**
 * `vector only` ranks by the embedding's cosine alone (the engine's nearest neighbours, no keyword,
 * recency or importance): recall's vector part, beside `search`, its keyword part.
 */
type Method = "recall" | "recall, access off" | "search" | "vector only";
/** Each setting's methods: recall with access counting on its own store; the others, which count nothing, on another. */
const SETTINGS = [
  [true, ["recall"]],
  [false, ["recall, access off", "search", "vector only"]],
] as const satisfies readonly (readonly [boolean, readonly Method[]])[];

/** A service of its own per setting; its clock starts at 0 and follows each persona's own dates (RealMem sessions are in the past). */
const startService = (embedder: Embedder, recordAccess: boolean) => startClockedService(embedder, { engine: args.engine, label: "quality", recordAccess });
type Service = ClockedService;

/** A wallet talking to one service, signing `service-auth:{ts}` at the service's clock (one signature per clock second). */
class Wallet {
  private readonly account = privateKeyToAccount(generatePrivateKey());
  private header: { ts: number; value: string } | null = null;
  constructor(private readonly service: Service) {}

  async post(path: string, body: unknown): Promise<any> {
    const ts = Math.floor(this.service.now() / 1000);
    if (this.header?.ts !== ts) {
      const signature = await this.account.signMessage({ message: `service-auth:${ts}` });
      this.header = { ts, value: `${this.account.address}:${ts}:${signature}` };
    }
    const res = await fetch(this.service.url + path, {
      method: "POST",
      headers: { "content-type": "application/json", "x-wallet-auth": this.header.value },
      body: JSON.stringify(body),
    });
    const answer = await res.json();
    if (!res.ok) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
    return answer;
  }

  /** Stores contents (batches of the spec's maximum); returns the id each content ended up under. */
  async store(items: { content: string; session_id?: string; metadata?: Record<string, string> }[]): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < items.length; i += LIMITS.batch) {
      const answer = await this.post("/v1/store/batch", { memories: items.slice(i, i + LIMITS.batch) });
      ids.push(...(answer.ids as string[]));
    }
    return ids;
  }

  async ask(method: Method, query: string): Promise<string[]> {
    if (method === "vector only") return this.nearest(query);
    const answer = method === "search"
      ? await this.post("/v1/search", { query: query.slice(0, LIMITS.searchQuery), limit: LIMIT })
      : await this.post("/v1/recall", { query, limit: LIMIT });
    return (answer.memories as { id: string }[]).map((m) => m.id);
  }

  /** The wallet's LIMIT nearest memories by cosine, straight from the engine (as recall's vector search asks, without filters). */
  private async nearest(query: string): Promise<string[]> {
    const userId = await this.service.store.userIdForWallet(this.account.address.toLowerCase());
    const { vectors } = await this.service.embedder.embed([query]);
    return (await this.service.store.nearest(userId, vectors[0]!, {}, LIMIT, this.service.now())).map((h) => h.memory.id);
  }
}

/** 1-based rank of the first relevant result, 0 when none of the top LIMIT is relevant. */
const firstHit = (ids: string[], relevant: (id: string) => boolean) => ids.findIndex(relevant) + 1;

function metrics(ranks: number[]) {
  const at = (k: number) => ranks.filter((r) => r > 0 && r <= k).length / Math.max(1, ranks.length);
  const mrr = ranks.reduce((sum, r) => sum + (r > 0 ? 1 / r : 0), 0) / Math.max(1, ranks.length);
  return { r1: at(1), r5: at(5), r10: at(10), mrr, n: ranks.length };
}

interface Row {
  dataset: string;
  scale: string;
  level: string;
  method: Method;
  ranks: number[];
}
const rows: Row[] = [];

// ---------------------------------------------------------------------------------------------------
// realmem

/** Runs one persona through one service: distractors first, then its turns and queries in order. */
async function runPersona(service: Service, persona: Persona, distractors: string[], methods: Method[], out: Map<string, number[]>): Promise<void> {
  const wallet = new Wallet(service);
  const turnsOf = new Map<string, string[]>(); // memory id → turn keys
  const sessionsOf = new Map<string, Set<string>>(); // memory id → sessions
  const first = persona.events[0]!;
  service.setClock(first.at);
  await wallet.store(distractors.map((content) => ({ content })));
  let pending: { content: string; session_id: string; key: string; session: string }[] = [];
  const flush = async () => {
    const ids = await wallet.store(pending.map(({ content, session_id }) => ({ content, session_id })));
    ids.forEach((id, i) => {
      turnsOf.set(id, [...(turnsOf.get(id) ?? []), pending[i]!.key]);
      sessionsOf.set(id, (sessionsOf.get(id) ?? new Set()).add(pending[i]!.session));
    });
    pending = [];
  };
  for (const event of persona.events) {
    service.setClock(event.at);
    if (event.kind === "turn") {
      for (const content of event.chunks) pending.push({ content, session_id: event.session, key: event.key, session: event.session });
      continue;
    }
    await flush();
    for (const method of methods) {
      const ids = await wallet.ask(method, event.text);
      if (event.evidenceTurns.size > 0) {
        push(out, `turn|${method}`, firstHit(ids, (id) => (turnsOf.get(id) ?? []).some((k) => event.evidenceTurns.has(k))));
      }
      push(out, `session|${method}`, firstHit(ids, (id) => [...(sessionsOf.get(id) ?? [])].some((s) => event.evidenceSessions.has(s))));
    }
  }
}

const push = (m: Map<string, number[]>, key: string, value: number) => void m.set(key, [...(m.get(key) ?? []), value]);

async function runRealMem(embedder: Embedder, scale: number, label: string): Promise<void> {
  const all = loadRealMem(LIMITS.content);
  const personas = all.slice(0, Number(args.personas));
  // Each service setting gets its own store: access counts must not leak between settings.
  for (const [recordAccess, methods] of SETTINGS) {
    const service = await startService(embedder, recordAccess);
    const out = new Map<string, number[]>();
    for (const [p, persona] of personas.entries()) {
      const own = persona.events.reduce((n, e) => n + (e.kind === "turn" ? e.chunks.length : 0), 0);
      // Distractors come from every other persona, asked or not, so the wallet reaches `scale`.
      const distractors = all
        .filter((q) => q !== persona)
        .flatMap((q) => q.events.flatMap((e) => (e.kind === "turn" ? e.chunks : [])))
        .slice(0, Math.max(0, scale - own));
      const started = performance.now();
      await runPersona(service, persona, distractors, [...methods], out);
      log(`realmem ${label} [${methods.join(" + ")}] ${p + 1}/${personas.length} ${persona.name}: ${own} turns + ${distractors.length} distractors, ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
    await service.stop();
    for (const method of methods) {
      for (const level of ["turn", "session"]) rows.push({ dataset: "realmem", scale: label, level, method, ranks: out.get(`${level}|${method}`) ?? [] });
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// facts and paraphrase: labelled targets among distractors in one wallet

interface Labelled {
  memory: string;
  question: string;
}

/**
 * Stores `targets` and the set's own hard distractors at pseudo-random places (so insertion order
 * says nothing) among synthetic memories on the same topics (synthetic.ts) until the wallet holds
 * `scale`, then asks one question per target, in order. Hit = the target memory itself.
 */
async function runLabelled(embedder: Embedder, dataset: string, level: string, targets: Labelled[], hard: string[], scale: number, label: string): Promise<void> {
  for (const [recordAccess, methods] of SETTINGS) {
    const service = await startService(embedder, recordAccess);
    service.setClock(Date.now());
    const wallet = new Wallet(service);
    const rng = prng(Number(args.seed));
    const contents = Array.from({ length: Math.max(0, scale - targets.length - hard.length) }, () => syntheticMemory(rng).content);
    for (const content of [...hard, ...targets.map((t) => t.memory)]) contents.splice(Math.floor(rng() * (contents.length + 1)), 0, content);
    log(`${dataset} ${label} [${methods.join(" + ")}]: storing ${contents.length} memories…`);
    const ids = await wallet.store(contents.map((content) => ({ content })));
    const idOf = new Map(contents.map((c, i) => [c, ids[i]!]));
    // A target folded into another memory (or one folded into it) as a duplicate would score another text.
    const stored = new Map<string, number>();
    for (const id of ids) stored.set(id, (stored.get(id) ?? 0) + 1);
    const merged = targets.filter((t) => stored.get(idOf.get(t.memory)!)! > 1);
    if (merged.length > 0) throw new Error(`${dataset}: the service merged target memories with others as duplicates (${merged.map((t) => JSON.stringify(t.memory)).join(", ")}); reword them or their twins so each target is stored on its own`);
    const out = new Map<string, number[]>();
    for (const t of targets) {
      const target = idOf.get(t.memory)!;
      for (const method of methods) push(out, method, firstHit(await wallet.ask(method, t.question), (id) => id === target));
    }
    log(`${dataset} ${label} [${methods.join(" + ")}]: ${targets.length} queries over ${contents.length} memories`);
    await service.stop();
    for (const method of methods) rows.push({ dataset, scale: label, level, method, ranks: out.get(method) ?? [] });
  }
}

const runFacts = (embedder: Embedder, scale: number, label: string) => runLabelled(embedder, "facts", "fact", QUALITY_SET.map((c) => ({ memory: c.content, question: c.query })), [], scale, label);
const runParaphrase = (embedder: Embedder, scale: number, label: string) => runLabelled(embedder, "paraphrase", "memory", PARAPHRASE_SET, PARAPHRASE_SET.flatMap((c) => c.distractors), scale, label);

// ---------------------------------------------------------------------------------------------------

const embedder = await startBenchEmbedder(cacheDir);
const scales = args.scales.split(",").map((s) => ({ label: s, size: Number(s.replace(/k$/i, "000")) }));
const started = performance.now();
for (const dataset of args.datasets.split(",")) {
  for (const { label, size } of scales) {
    if (dataset === "realmem") await runRealMem(embedder, size, label);
    else if (dataset === "facts") await runFacts(embedder, size, label);
    else if (dataset === "paraphrase") await runParaphrase(embedder, size, label);
    else throw new Error(`unknown data set "${dataset}": use realmem, facts and/or paraphrase`);
  }
}
await embedder.close();

const pct = (x: number) => (x * 100).toFixed(1);
console.log(`## retrieval quality: ${args.engine} engine, model ${embedder.modelId}, limit ${LIMIT}, ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
printTable(
  ["data set", "memories/wallet", "hit level", "method", "queries", "R@1", "R@5", "R@10", "MRR@10"],
  rows.map((r) => {
    const m = metrics(r.ranks);
    return [r.dataset, r.scale, r.level, r.method, String(m.n), pct(m.r1), pct(m.r5), pct(m.r10), m.mrr.toFixed(3)];
  }),
);
process.exit(0);
