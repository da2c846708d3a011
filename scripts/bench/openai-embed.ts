/**
 * What the OpenAI-compatible embedder costs the service's own process (it has no worker thread:
 * the answer is parsed, checked and normalised on the thread that serves requests).
 *
 *   bun scripts/bench/openai-embed.ts [--seconds 2]
 *
 * A fake server in a child process answers every request at once with fixed vectors printed like
 * OpenAI's (floats with ~10 significant digits), so the time measured is the client's: request,
 * JSON parse, schema check, reorder, normalisation. Prints per dimension and batch size: wall p50
 * per embed() call, CPU of this process per call (user + system, all its threads), texts/s.
 */
import { parseArgs } from "node:util";
import { startOpenAIEmbedder } from "../../src/embed/openai-embedder.ts";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "2" } } });
const seconds = Number(values.seconds);

/** The fake server: the model name "d<N>" sets the dimension; prints its port. */
const SERVER = `
const rows = new Map();
const vector = (d) => rows.get(d) ?? rows.set(d, JSON.stringify(Array.from({ length: d }, (_, i) => Number((Math.sin(i * 12.9898) * 0.05).toPrecision(10))))).get(d);
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, async fetch(req) {
  const { model, input } = await req.json();
  const v = vector(Number(model.slice(1)));
  const data = input.map((_, i) => '{"object":"embedding","index":' + i + ',"embedding":' + v + '}').join(",");
  return new Response('{"object":"list","data":[' + data + '],"usage":{"prompt_tokens":' + input.length * 8 + ',"total_tokens":' + input.length * 8 + '}}', { headers: { "content-type": "application/json" } });
} });
console.log(server.port);
`;
const child = Bun.spawn(["bun", "-e", SERVER], { stdout: "pipe", stderr: "inherit" });
const reader = child.stdout.getReader();
const port = Number(new TextDecoder().decode((await reader.read()).value).trim());
const baseUrl = `http://127.0.0.1:${port}/v1`;

const texts = (n: number) => Array.from({ length: n }, (_, i) => `the user prefers dark mode for project number ${i}`);
const rows: string[][] = [];
for (const dimension of [384, 768, 1536]) {
  const embedder = await startOpenAIEmbedder({ model: `openai:d${dimension}`, baseUrl });
  for (const batch of [1, 16, 64]) {
    const input = texts(batch);
    for (let i = 0; i < 20; i++) await embedder.embed(input); // warm-up
    Bun.gc(true);
    const walls: number[] = [];
    const cpu = process.cpuUsage();
    const started = performance.now();
    while (performance.now() - started < seconds * 1000) {
      const t0 = performance.now();
      await embedder.embed(input);
      walls.push(performance.now() - t0);
    }
    const used = process.cpuUsage(cpu);
    const elapsed = (performance.now() - started) / 1000;
    walls.sort((a, b) => a - b);
    const cpuMs = (used.user + used.system) / 1000 / walls.length;
    rows.push([String(dimension), String(batch), walls[walls.length >> 1]!.toFixed(3), cpuMs.toFixed(3), String(Math.round((walls.length * batch) / elapsed))]);
    console.error(`[bench] ${dimension}-d, batch ${batch}: done`);
  }
  await embedder.close();
}
child.kill();

console.log("| dimension | texts per call | wall p50 ms | client CPU ms per call | texts/s |");
console.log("|---|---|---|---|---|");
for (const row of rows) console.log(`| ${row.join(" | ")} |`);
