import type { Clock } from "./ports";
import type { EmbeddingModelInfo } from "./store-port";
import { CopyRefused, type StoreTransfer, type TransferableStore, type TransferCounts, type WalletRecord } from "./store-transfer";

export { CopyRefused };

/** Memories read and written per batch: one transaction (sqlite) or MULTI (Redis) each. */
export const COPY_BATCH = 500;

/**
 * What earlier runs of the same copy finished, kept outside both stores (scripts/migrate-store-checkpoint.ts
 * keeps it in a file). Every mark is made after the target committed what it names, so a run cut off
 * in between writes that part again, which imports absorb (they replace by id).
 */
export interface CopyCheckpoint {
  load(): CopyProgress;
  walletsCopied(): void;
  /** The user's memories are copied up to `next` (a source position; null: all of them). */
  copied(userId: string, next: string | null): void;
  /** The user's relations are copied too. */
  finished(userId: string): void;
}

export interface CopyProgress {
  wallets: boolean;
  /** users with memories copied, to the position given (null: all) */
  positions: Map<string, string | null>;
  finished: Set<string>;
}

export type CopyEvent =
  | { kind: "resume"; finished: number; started: number }
  | { kind: "wallets"; count: number }
  | { kind: "memories"; user: number; users: number; copied: number; total: number }
  | { kind: "verify"; user: number; users: number }
  | { kind: "note"; message: string };

export interface VerifiedUser {
  user_id: string;
  /** the wallet address that maps to the user (null: a user without a wallet record) */
  address: string | null;
  source: TransferCounts & { free_calls_used: number };
  target: TransferCounts & { free_calls_used: number };
  equal: boolean;
}

export interface CopyReport {
  model: EmbeddingModelInfo | null;
  users: VerifiedUser[];
  /** memories copied by this run (a resumed run skips what earlier runs copied) */
  copied: number;
  /** source wallet records the target lacks or maps to another user (none after a good copy) */
  missingWallets: string[];
  ok: boolean;
}

/**
 * Copies every wallet record, and every user's memories (records, vectors byte for byte, content
 * hashes, history, access counts), relations, from one store into another, binding the target to
 * the source's embedding model; then counts both sides per user. Resumable through `checkpoint`.
 * The source must not change meanwhile (stop the service): later writes may be missed.
 */
export async function copyStore(
  from: TransferableStore,
  to: TransferableStore,
  checkpoint: CopyCheckpoint,
  { clock = Date.now, batch = COPY_BATCH, report = (_: CopyEvent) => {} }: { clock?: Clock; batch?: number; report?: (event: CopyEvent) => void } = {},
): Promise<CopyReport> {
  const [source, target] = await Promise.all([from.transfer(), to.transfer()]);
  const users = await source.users(clock());
  const model = await bindModel(source, target, to, users.some((u) => u.memories > 0));
  await moveSessionSecret(source, to, report);

  const progress = checkpoint.load();
  if (progress.wallets) report({ kind: "resume", finished: progress.finished.size, started: progress.positions.size - progress.finished.size });
  const wallets = await source.wallets();
  if (!progress.wallets) {
    await target.importWallets(wallets);
    checkpoint.walletsCopied();
  }
  report({ kind: "wallets", count: wallets.length });

  const total = users.reduce((sum, u) => sum + u.memories, 0);
  let copied = 0;
  let done = 0;
  for (const [i, { user_id, memories }] of users.entries()) {
    if (progress.finished.has(user_id)) {
      done += memories;
      continue;
    }
    const resumed = progress.positions.get(user_id); // undefined: not started; null: memories all copied
    // Two batches in flight: the next one is read and sent while the target still writes this one
    // (each engine's CPU work overlaps the other's). A batch is marked once it and every batch
    // before it are written: the target commits them in the order they were sent.
    let previous: Promise<void> = Promise.resolve();
    for await (const page of resumed === null ? [] : pages(source, user_id, resumed ?? null, batch, clock)) {
      const imported = target.importMemories(user_id, page.items);
      const marked = Promise.all([imported, previous]).then(() => {
        checkpoint.copied(user_id, page.next);
        copied += page.items.length;
        done += page.items.length;
        report({ kind: "memories", user: i + 1, users: users.length, copied: done, total });
      });
      marked.catch(() => {}); // observed below, possibly after it failed
      await previous;
      previous = marked;
    }
    await previous;
    await target.importRelations(user_id, await source.relations(user_id, clock()));
    checkpoint.finished(user_id);
  }

  const verified = await verify(source, target, users.map((u) => u.user_id), wallets, clock, report);
  const targetWallets = new Map((await target.wallets()).map((w) => [w.address, w.user_id]));
  const missingWallets = wallets.filter((w) => targetWallets.get(w.address) !== w.user_id).map((w) => w.address);
  return { model, users: verified, copied, missingWallets, ok: missingWallets.length === 0 && verified.every((u) => u.equal) };
}

/** The user's pages from `after` on, each read while the one before it is being imported. */
async function* pages(source: StoreTransfer, userId: string, after: string | null, batch: number, clock: Clock) {
  let next = source.memories(userId, after, batch, clock());
  for (;;) {
    const page = await next;
    if (page.next !== null) next = source.memories(userId, page.next, batch, clock());
    yield page;
    if (page.next === null) return;
  }
}

/** The source's model, bound on the target; refused when the target is bound to another one. */
async function bindModel(source: StoreTransfer, target: StoreTransfer, to: TransferableStore, hasMemories: boolean): Promise<EmbeddingModelInfo | null> {
  const model = await source.boundModel();
  if (!model) {
    if (hasMemories) throw new CopyRefused("the source holds memories but is bound to no embedding model: start the service on it once (it binds the model), then copy");
    return null;
  }
  const unembedded = await source.countUnembedded(model.dimension);
  if (unembedded > 0) {
    throw new CopyRefused(
      `${unembedded} memories of the source have no ${model.dimension}-d vector of "${model.id}" (an interrupted re-embedding): ` +
        `finish it first (EMBEDDING_MODEL=${model.id} bun run reembed, on the source), then copy`,
    );
  }
  const bound = await target.boundModel();
  if (bound && (bound.id !== model.id || bound.dimension !== model.dimension)) {
    throw new CopyRefused(
      `the target is bound to the embedding model "${bound.id}" (${bound.dimension}-d), the source's memories are embedded with "${model.id}" ` +
        `(${model.dimension}-d): copy into an empty store, or re-embed one of them first so both use the same model (EMBEDDING_MODEL=<model> bun run reembed)`,
    );
  }
  await to.bindEmbeddingModel(model);
  return model;
}

/** Session tokens signed with the source's stored key stay valid on the target (unless JWT_SECRET is set, which wins on both). */
async function moveSessionSecret(source: StoreTransfer, to: TransferableStore, report: (event: CopyEvent) => void): Promise<void> {
  const secret = await source.storedSessionSecret();
  if (secret === null) return;
  if ((await to.sessionSecret(secret)) !== secret) {
    report({ kind: "note", message: "the target keeps its own session key: sessions signed by the source's service must sign in again" });
  }
}

async function verify(
  source: StoreTransfer,
  target: StoreTransfer,
  users: string[],
  wallets: WalletRecord[],
  clock: Clock,
  report: (event: CopyEvent) => void,
): Promise<VerifiedUser[]> {
  const byUser = new Map(wallets.map((w) => [w.user_id, w]));
  const targetWallets = new Map((await target.wallets()).map((w) => [w.user_id, w]));
  const verified: VerifiedUser[] = [];
  for (const [i, user_id] of users.entries()) {
    const now = clock();
    const wallet = byUser.get(user_id);
    const sourceCounts = { ...(await source.counts(user_id, now)), free_calls_used: wallet?.free_calls_used ?? 0 };
    const targetCounts = { ...(await target.counts(user_id, now)), free_calls_used: targetWallets.get(user_id)?.free_calls_used ?? 0 };
    const equal = (Object.keys(sourceCounts) as (keyof typeof sourceCounts)[]).every((k) => sourceCounts[k] === targetCounts[k]);
    verified.push({ user_id, address: wallet?.address ?? null, source: sourceCounts, target: targetCounts, equal });
    report({ kind: "verify", user: i + 1, users: users.length });
  }
  return verified;
}
