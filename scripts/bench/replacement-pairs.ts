/**
 * auto_relate's replacement check on the pairs of replacement-pairs-set.ts, as the service runs it:
 * the rules (relate.ts), then, where they found no replacement, the embedding model's judge
 * (encoder-replacement.ts). Said pairs go through the offline extractor first, as ingest reads
 * them; a said pair counts as replaced when a fact of the later message replaces one of the earlier.
 *
 *   [EMBEDDING_MODEL=<id>] bun scripts/bench/replacement-pairs.ts [--show]
 *
 * Prints, per set, how many pairs are replaced and by what; for the near misses every one is a
 * false replacement, for the changes every one missed is a change not seen. `--show` lists them.
 */
import { parseArgs } from "node:util";
import { EncoderReplacementJudge } from "../../src/domain/ingest/encoder-replacement.ts";
import { BENCH_MODEL, printTable, startBenchEmbedder } from "./bench-util.ts";
import { MODEL_CACHE_DIR } from "./clocked-service.ts";
import { HELD_OUT_SAID_CHANGES, HELD_OUT_STORED_CHANGES, JUDGED_CHANGES, NEAR_MISSES, SAID_NEAR_MISSES, replacedBy, type Pair } from "./replacement-pairs-set.ts";

const { values: args } = parseArgs({ options: { show: { type: "boolean", default: false } } });
const embedder = await startBenchEmbedder(MODEL_CACHE_DIR);
const judge = new EncoderReplacementJudge(embedder);

const sets: { name: string; pairs: Pair[]; said: boolean; changes: boolean }[] = [
  { name: "near misses, stored", pairs: NEAR_MISSES, said: false, changes: false },
  { name: "near misses, said", pairs: SAID_NEAR_MISSES, said: true, changes: false },
  { name: "changes for the judge, stored", pairs: JUDGED_CHANGES, said: false, changes: true },
  { name: "held-out changes, stored", pairs: HELD_OUT_STORED_CHANGES, said: false, changes: true },
  { name: "held-out changes, said", pairs: HELD_OUT_SAID_CHANGES, said: true, changes: true },
];

const rows: string[][] = [];
const listed: string[] = [];
for (const set of sets) {
  const counts = { rules: 0, judge: 0 };
  for (const pair of set.pairs) {
    const by = await replacedBy(judge, pair, set.said);
    if (by) counts[by]++;
    if (by !== null ? !set.changes : set.changes) listed.push(`${set.name}: ${by ? `replaced by the ${by}` : "missed"}: ${JSON.stringify(pair)}`);
  }
  const replaced = counts.rules + counts.judge;
  rows.push([set.name, String(set.pairs.length), `${replaced} (${((100 * replaced) / set.pairs.length).toFixed(1)}%)`, String(counts.rules), String(counts.judge)]);
}
console.log(`## replacement on written pairs: model ${BENCH_MODEL}\n`);
printTable(["set", "pairs", "replaced", "by the rules", "by the judge"], rows);
if (args.show) for (const line of listed) console.error(line);
await embedder.close();
process.exit(0);
