/**
 * Knowledge updates: does recall answer with a fact's current value once it has changed, still
 * find the value it replaced, and leave alone a fact that a later fact about something else does
 * not replace? All over HTTP, on the cases of knowledge-update-set.ts.
 *
 *   bun scripts/bench/knowledge-update.ts [--mode ingest,store-auto,store-client] [--cases N]
 *                                         [--engine sqlite|redis] [--seed 1] [--show N]
 *
 * Each case gets a wallet of its own: its sessions (days or weeks apart on the service's clock)
 * with ~20 distractor facts, written in one of three ways (one service per mode):
 *  - ingest:       each session's user messages through POST /v1/ingest with auto_relate (the
 *                  configured extractor: offline unless LLM_BASE_URL is set);
 *  - store-auto:   each fact as an agent stores it ("User moved to Lisbon") through POST /v1/store
 *                  with auto_relate: true (a server that rejects the field fails the mode);
 *  - store-client: the same stores without auto_relate; the client links each new value to the
 *                  one it replaces (POST /v1/memories/{new}/relations, supersedes).
 * Then the questions, with recall's access counting off (so one question's answers do not lift
 * the next one's): POST /v1/recall at limit 10 and 5, POST /v1/context (text), and the wallet's
 * relations from GET /v1/graph. A memory holds a value when its content contains it
 * (case-insensitive); a memory holding several of a chain's values stands for the latest.
 *
 * Metrics per mode (change cases unless said):
 *  - current value first: the best-ranked memory holding any of the case's values holds the
 *    current one and is rank 1 overall; looser, the same within the top 5;
 *  - former value found: a memory holding the value just before the current one is in the top 5
 *    for the former-value question;
 *  - context: the first line of /v1/context's text holding any value holds the current one;
 *  - detection (ingest, store-auto): supersedes/contradicts relations in all wallets; one is real
 *    when its source holds a later value of the case's chain than its target. Precision = real /
 *    detected; recall = chain links (value k-1 → k) with a real relation from k to k-1 / links;
 *  - non-change safety (stable cases): no supersedes/contradicts relation points to a memory
 *    holding the first fact's value, and a memory holding it is rank 1 for its question.
 * `--cases N` runs N change cases and N/2 stable cases spread over the set; `--show N` prints up
 * to N failed change cases per mode with what ranked first and the replacements detected among the
 * case's values (stderr).
 */
import { parseArgs } from "node:util";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import type { Embedder } from "../../src/embed/embedder.ts";
import { CHANGE_CASES, STABLE_CASES, planWallet, type ChangeCase, type KnowledgeCase, type StableCase } from "./knowledge-update-set.ts";
import { printTable, startBenchEmbedder } from "./bench-util.ts";
import { MODEL_CACHE_DIR, startClockedService, type ClockedService } from "./clocked-service.ts";

const MODES = ["ingest", "store-auto", "store-client"] as const;
type Mode = (typeof MODES)[number];

const { values: args } = parseArgs({
  options: {
    mode: { type: "string", default: MODES.join(",") },
    cases: { type: "string" },
    engine: { type: "string", default: "sqlite" },
    seed: { type: "string", default: "1" },
    show: { type: "string", default: "0" },
  },
});
const log = (m: string) => console.error(`[knowledge-update] ${m}`);
const cacheDir = MODEL_CACHE_DIR;
const seed = Number(args.seed);
const DAY = 86_400_000;
/** Where every wallet's timeline starts (a Monday morning): fixed, so runs compare. */
const START = Date.UTC(2025, 0, 6, 9);
/** Between two stores of one session: one signature per clock second, and distinct created_at. */
const STEP_MS = 20_000;
const RELATION_TYPES = new Set(["supersedes", "contradicts"]);

// ---------------------------------------------------------------------------------------------------
// the service and a wallet on it

/** A service per mode; every question sees the wallet as written (recall counts no access, so no answer lifts the next question's). */
const startService = (embedder: Embedder) => startClockedService(embedder, { engine: args.engine, label: "knowledge-update", recordAccess: false, start: START });
type Service = ClockedService;

/** An answer the service refused: the mode stops and reports it. */
class Refused extends Error {}

/** A wallet signing `service-auth:{ts}` at the service's clock (a session token would expire over the weeks a case spans). */
class Wallet {
  private readonly account = privateKeyToAccount(generatePrivateKey());
  private header: { ts: number; value: string } | null = null;
  constructor(private readonly service: Service) {}

  async request(method: "GET" | "POST", path: string, body?: unknown): Promise<any> {
    const ts = Math.floor(this.service.now() / 1000);
    if (this.header?.ts !== ts) {
      const signature = await this.account.signMessage({ message: `service-auth:${ts}` });
      this.header = { ts, value: `${this.account.address}:${ts}:${signature}` };
    }
    const res = await fetch(this.service.url + path, {
      method,
      headers: { "content-type": "application/json", "x-wallet-auth": this.header.value },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = await res.json();
    if (!res.ok) throw new Refused(`${method} ${path} answered ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
    return answer;
  }

  post = (path: string, body: unknown) => this.request("POST", path, body);
  get = (path: string) => this.request("GET", path);
}

// ---------------------------------------------------------------------------------------------------
// one case

/** The latest of `values` that `content` holds, -1 for none. */
function valueIndex(content: string, values: string[]): number {
  const text = content.toLowerCase();
  for (let k = values.length - 1; k >= 0; k--) if (text.includes(values[k]!.toLowerCase())) return k;
  return -1;
}

interface Edge {
  type: string;
  source: string;
  target: string;
}

/** What one case's wallet ended up holding and answering. */
interface Outcome {
  memories: number;
  /** per value: whether some memory holds it */
  stored: boolean[];
  /** supersedes/contradicts relations, as the value index their ends hold */
  detected: { source: number; target: number }[];
  /** contents ranked for each question, by limit */
  answers: Map<string, string[]>;
  context: string[];
  merged: number;
}

async function writeWallet(mode: Mode, service: Service, wallet: Wallet, c: KnowledgeCase): Promise<number> {
  let merged = 0;
  const idOfValue = new Map<number, string>();
  for (const session of planWallet(c, seed)) {
    let at = START + session.day * DAY;
    service.setClock(at);
    if (mode === "ingest") {
      await wallet.post("/v1/ingest", { messages: session.items.map((i) => ({ role: "user", content: i.said })), session_id: session.id, auto_relate: true });
      continue;
    }
    for (const item of session.items) {
      service.setClock((at += STEP_MS));
      const { id } = await wallet.post("/v1/store", { content: item.stored, session_id: session.id, ...(mode === "store-auto" ? { auto_relate: true } : {}) });
      if (item.value === null || c.kind !== "change") continue;
      const previous = idOfValue.get(item.value - 1);
      idOfValue.set(item.value, id);
      if (previous === id) merged++; // stored as a duplicate of the value it replaces: nothing to link
      else if (mode === "store-client" && previous !== undefined) await wallet.post(`/v1/memories/${id}/relations`, { target_id: previous, relation_type: "supersedes" });
    }
  }
  return merged;
}

const questionsOf = (c: KnowledgeCase) => (c.kind === "change" ? [c.questions.current, c.questions.former] : [c.question]);

async function runCase(mode: Mode, service: Service, c: KnowledgeCase): Promise<Outcome> {
  const wallet = new Wallet(service);
  const merged = await writeWallet(mode, service, wallet, c);
  const last = planWallet(c, seed).at(-1)!;
  service.setClock(START + (last.day + 1) * DAY);

  const graph = await wallet.get("/v1/graph?depth=1&max_nodes=500");
  const contentOf = new Map<string, string>((graph.nodes as { id: string; content: string }[]).map((n) => [n.id, n.content]));
  const edges: Edge[] = (graph.edges as { relation_type: string; source_id: string; target_id: string }[]).map((e) => ({ type: e.relation_type, source: e.source_id, target: e.target_id }));
  const contents = [...contentOf.values()];
  const detected = edges
    .filter((e) => RELATION_TYPES.has(e.type))
    .map((e) => ({ source: valueIndex(contentOf.get(e.source) ?? "", c.values), target: valueIndex(contentOf.get(e.target) ?? "", c.values) }));

  const answers = new Map<string, string[]>();
  for (const query of questionsOf(c)) {
    for (const limit of [10, 5]) {
      const { memories } = await wallet.post("/v1/recall", { query, limit });
      answers.set(`${limit}|${query}`, (memories as { content: string }[]).map((m) => m.content));
    }
  }
  const { context } = await wallet.post("/v1/context", { query: questionsOf(c)[0] });
  return {
    memories: contents.length,
    stored: c.values.map((v) => contents.some((text) => text.toLowerCase().includes(v.toLowerCase()))),
    detected,
    answers,
    context: (context as string).split("\n").filter((line) => line.startsWith("- ")),
    merged,
  };
}

// ---------------------------------------------------------------------------------------------------
// scoring

/** 0-based rank of the first content holding any value, and the value it holds (-1, -1 for none). */
function firstValued(contents: string[], values: string[]): { rank: number; value: number } {
  const rank = contents.findIndex((text) => valueIndex(text, values) >= 0);
  return { rank, value: rank < 0 ? -1 : valueIndex(contents[rank]!, values) };
}

function scoreChange(c: ChangeCase, o: Outcome) {
  const current = c.values.length - 1;
  const atLimit = (limit: number) => {
    const forCurrent = o.answers.get(`${limit}|${c.questions.current}`)!;
    const first = firstValued(forCurrent, c.values);
    const previous = c.values[current - 1]!.toLowerCase();
    return {
      first: first.value === current && first.rank === 0,
      top5: first.value === current && first.rank < 5,
      former: o.answers.get(`${limit}|${c.questions.former}`)!.slice(0, 5).some((text) => text.toLowerCase().includes(previous)),
    };
  };
  const real = o.detected.filter((d) => d.target >= 0 && d.source > d.target);
  return {
    l10: atLimit(10),
    l5: atLimit(5),
    context: firstValued(o.context, c.values).value === current,
    detected: o.detected.length,
    real: real.length,
    links: current,
    linksFound: Array.from({ length: current }, (_, k) => real.some((d) => d.source === k + 1 && d.target === k)).filter(Boolean).length,
    stored: o.stored.filter(Boolean).length,
  };
}

function scoreStable(c: StableCase, o: Outcome) {
  const untouched = !o.detected.some((d) => d.target === 0);
  const firstAt = (limit: number) => (o.answers.get(`${limit}|${c.question}`)![0] ?? "").toLowerCase().includes(c.values[0].toLowerCase());
  return { untouched, first10: firstAt(10), first5: firstAt(5), safe: untouched && firstAt(10), detected: o.detected.length, stored: o.stored.filter(Boolean).length };
}

interface ModeResult {
  mode: Mode;
  failed?: string;
  change: ReturnType<typeof scoreChange>[];
  stable: ReturnType<typeof scoreStable>[];
  memories: number[];
  merged: number;
  seconds: number;
}

async function runMode(mode: Mode, embedder: Embedder, changeCases: ChangeCase[], stableCases: StableCase[], show: number): Promise<ModeResult> {
  const service = await startService(embedder);
  const result: ModeResult = { mode, change: [], stable: [], memories: [], merged: 0, seconds: 0 };
  const started = performance.now();
  const cases: KnowledgeCase[] = [...changeCases, ...stableCases];
  let shown = 0;
  try {
    for (const [i, c] of cases.entries()) {
      const o = await runCase(mode, service, c);
      result.memories.push(o.memories);
      result.merged += o.merged;
      if (c.kind === "change") {
        const s = scoreChange(c, o);
        result.change.push(s);
        if (!s.l10.first && shown < show) {
          shown++;
          const top = o.answers.get(`10|${c.questions.current}`)!.slice(0, 3);
          const links = o.detected.filter((d) => d.source >= 0 && d.target >= 0).map((d) => `${d.source}→${d.target}`);
          log(`${mode} ${c.id} [${c.values.join(" → ")}] "${c.questions.current}": ${top.map((t) => JSON.stringify(t)).join(", ")}; replaced (value index new→old): ${links.join(" ") || "none"}`);
        }
      } else result.stable.push(scoreStable(c, o));
      if ((i + 1) % 50 === 0 || i + 1 === cases.length) log(`${mode}: ${i + 1}/${cases.length} cases, ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    result.failed = error.message;
    log(`${mode} failed: ${error.message}`);
  } finally {
    result.seconds = (performance.now() - started) / 1000;
    await service.stop();
  }
  return result;
}

// ---------------------------------------------------------------------------------------------------

/** `n` items spread evenly over `xs` (every topic gets its share), or all of them. */
const spread = <T>(xs: T[], n: number): T[] => (n >= xs.length ? xs : Array.from({ length: n }, (_, i) => xs[Math.floor((i * xs.length) / n)]!));

const modes = args.mode.split(",").map((m) => {
  if (!(MODES as readonly string[]).includes(m)) throw new Error(`unknown mode "${m}": use ${MODES.join(", ")}`);
  return m as Mode;
});
const size = args.cases === undefined ? Infinity : Number(args.cases);
if (!(size > 0)) throw new Error("--cases must be a positive number");
const changeCases = spread(CHANGE_CASES, size);
const stableCases = spread(STABLE_CASES, size === Infinity ? Infinity : Math.ceil(size / 2));

const embedder = await startBenchEmbedder(cacheDir);
const started = performance.now();
const results: ModeResult[] = [];
for (const mode of modes) results.push(await runMode(mode, embedder, changeCases, stableCases, Number(args.show)));
await embedder.close();

const pct = (hits: number, n: number) => (n === 0 ? "–" : `${((100 * hits) / n).toFixed(1)}`);
const share = <T>(xs: T[], ok: (x: T) => boolean) => pct(xs.filter(ok).length, xs.length);
const sum = <T>(xs: T[], f: (x: T) => number) => xs.reduce((a, x) => a + f(x), 0);
const cell = (r: ModeResult, text: () => string) => (r.failed ? "failed" : text());
const detects = (r: ModeResult) => r.mode !== "store-client";

console.log(`## knowledge updates: ${args.engine} engine, model ${embedder.modelId}, seed ${seed}, ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
const metric = (name: string, value: (r: ModeResult) => string): string[] => [name, ...results.map((r) => cell(r, () => value(r)))];
printTable(["metric (%)", ...results.map((r) => r.mode)], [
  metric("current value first (rank 1), limit 10", (r) => share(r.change, (s) => s.l10.first)),
  metric("current value first (rank 1), limit 5", (r) => share(r.change, (s) => s.l5.first)),
  metric("current above former, top 5, limit 10", (r) => share(r.change, (s) => s.l10.top5)),
  metric("current above former, top 5, limit 5", (r) => share(r.change, (s) => s.l5.top5)),
  metric("former value found, top 5, limit 10", (r) => share(r.change, (s) => s.l10.former)),
  metric("former value found, top 5, limit 5", (r) => share(r.change, (s) => s.l5.former)),
  metric("context: current value first", (r) => share(r.change, (s) => s.context)),
  metric("detection precision", (r) => (detects(r) ? pct(sum(r.change, (s) => s.real), sum(r.change, (s) => s.detected) + sum(r.stable, (s) => s.detected)) : "n/a")),
  metric("detection recall", (r) => (detects(r) ? pct(sum(r.change, (s) => s.linksFound), sum(r.change, (s) => s.links)) : "n/a")),
  metric("non-change safety", (r) => share(r.stable, (s) => s.safe)),
  metric("non-change: no relation to the first fact", (r) => share(r.stable, (s) => s.untouched)),
  metric("non-change: first value rank 1, limit 10", (r) => share(r.stable, (s) => s.first10)),
  metric("non-change: first value rank 1, limit 5", (r) => share(r.stable, (s) => s.first5)),
]);
console.log("");
const count = (name: string, value: (r: ModeResult) => string | number): string[] => [name, ...results.map((r) => cell(r, () => String(value(r))))];
printTable(["count", ...results.map((r) => r.mode)], [
  count("change cases", (r) => r.change.length),
  count("chain links (changes)", (r) => sum(r.change, (s) => s.links)),
  count("non-change cases", (r) => r.stable.length),
  count("memories per wallet (mean)", (r) => (sum(r.memories, (m) => m) / Math.max(1, r.memories.length)).toFixed(1)),
  count("chain values held by a memory (%)", (r) => pct(sum(r.change, (s) => s.stored), sum(r.change, (s) => s.links + 1))),
  count("supersedes/contradicts, change wallets", (r) => sum(r.change, (s) => s.detected)),
  count("… of them real", (r) => sum(r.change, (s) => s.real)),
  count("supersedes/contradicts, non-change wallets", (r) => sum(r.stable, (s) => s.detected)),
  count("new value stored as a duplicate of the old", (r) => r.merged),
  count("seconds", (r) => r.seconds.toFixed(0)),
]);
for (const r of results.filter((r) => r.failed)) console.log(`\n${r.mode} failed: ${r.failed}`);
process.exit(0);
