import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import type { EmbeddingModelInfo } from "../src/domain/store-port";

/**
 * What an interrupted `reembed` had finished: the ids of the memories it re-embedded with the
 * target model, in DATA_DIR, one file per target model, one line per id. Appended after each
 * batch is written to the store, so a rerun skips exactly those (a batch cut off mid-write is
 * done again). Ids rather than a scan position: the stores' scans promise no order across runs
 * (Redis SCAN), and the service may add or delete memories in between.
 */
export class ReembedCheckpoint {
  readonly path: string;
  private readonly header: string;

  constructor(dataDir: string, private readonly target: EmbeddingModelInfo) {
    const key = createHash("sha256").update(`${target.id}\n${target.dimension}`).digest("hex").slice(0, 16);
    this.path = join(dataDir, `reembed-${key}.progress`);
    this.header = `# re-embedding with ${JSON.stringify(target.id)} (${target.dimension}-d)`;
  }

  /** The ids finished by earlier runs towards this target (none if there were none). */
  load(): Set<string> {
    if (!existsSync(this.path)) return new Set();
    const [header, ...ids] = readFileSync(this.path, "utf8").split("\n");
    return header === this.header ? new Set(ids.filter(Boolean)) : new Set();
  }

  /** Forgets earlier runs: the store was bound to another model since, so their vectors are gone. */
  reset(): void {
    writeFileSync(this.path, `${this.header}\n`);
  }

  add(ids: string[]): void {
    if (!existsSync(this.path)) this.reset();
    appendFileSync(this.path, ids.map((id) => `${id}\n`).join(""));
  }

  /** The migration is complete: a later run starts from the beginning again. */
  remove(): void {
    rmSync(this.path, { force: true });
  }
}
