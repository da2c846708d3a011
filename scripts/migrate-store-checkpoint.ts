import { appendFileSync, existsSync, readFileSync, rmSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { CopyCheckpoint, CopyProgress } from "../src/domain/copy-store";

/**
 * What an interrupted `migrate-store` had finished, in a file in `dir` named after the pair of stores,
 * one line per step, appended after the target committed it:
 *
 *   # engram migrate-store <from> → <to>
 *   wallets                    the wallet records are copied
 *   at <user id> <position>    the user's memories are copied up to the source position (JSON; null: all)
 *   done <user id>             the user's relations are copied too
 *
 * A line cut off by a kill (no newline yet) is ignored: the step it named is done again, and the
 * import of a memory or relation already there replaces it. The store descriptions in the header
 * name the stores (passwords left out), so another pair never reads this file.
 */
export class MigrateCheckpoint implements CopyCheckpoint {
  readonly path: string;
  private readonly header: string;

  constructor(from: string, to: string, dir: string) {
    this.header = `# engram migrate-store ${from} → ${to}`;
    const key = createHash("sha256").update(this.header).digest("hex").slice(0, 16);
    this.path = join(dir, `migrate-store-${key}.progress`);
  }

  load(): CopyProgress {
    const progress: CopyProgress = { wallets: false, positions: new Map(), finished: new Set() };
    if (!existsSync(this.path)) return progress;
    const text = readFileSync(this.path, "utf8");
    const [header, ...lines] = text.slice(0, text.lastIndexOf("\n") + 1).split("\n");
    if (header !== this.header) return progress;
    for (const line of lines) {
      const [step, user, ...rest] = line.split(" ");
      if (step === "wallets") progress.wallets = true;
      else if (step === "at" && user) progress.positions.set(user, JSON.parse(rest.join(" ")) as string | null);
      else if (step === "done" && user) progress.finished.add(user);
    }
    return progress;
  }

  walletsCopied(): void {
    this.append("wallets");
  }

  copied(userId: string, next: string | null): void {
    this.append(`at ${userId} ${JSON.stringify(next)}`);
  }

  finished(userId: string): void {
    this.append(`done ${userId}`);
  }

  /** The copy is complete and verified: a later run starts from the beginning. */
  remove(): void {
    rmSync(this.path, { force: true });
  }

  private append(line: string): void {
    if (!existsSync(this.path)) appendFileSync(this.path, `${this.header}\n`);
    appendFileSync(this.path, `${line}\n`);
  }
}
