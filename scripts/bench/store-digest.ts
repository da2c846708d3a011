/**
 * Per-wallet fingerprints of a store, to compare a store with its copy: the export as the service
 * answers it (GET /v1/export?include_deleted=true, JSON), hashed as sent, and everything a copy
 * carries (records, vectors' bytes, content hashes, history, relations, the wallet record),
 * hashed in a canonical form (object keys sorted: each engine keeps history entries' keys in its
 * own order).
 */
import { createHash } from "node:crypto";
import type { TransferableStore } from "../../src/domain/store-transfer";
import { Memories } from "../../src/domain/memories";
import { exportAnswer } from "../../src/http/operations/export";

export interface WalletDigest {
  export: string;
  full: string;
}

/** JSON with every object's keys sorted. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v) && !ArrayBuffer.isView(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );
}

const sha = () => createHash("sha256");

export async function walletDigests(store: TransferableStore, now = Date.now()): Promise<Map<string, WalletDigest>> {
  const transfer = await store.transfer();
  const unused = { modelId: "", dimension: 0, embed: () => Promise.reject(new Error("no embedding while exporting")) };
  const memories = new Memories(store, unused, () => now, 1);
  const digests = new Map<string, WalletDigest>();
  for (const wallet of await transfer.wallets()) {
    const answer = await exportAnswer({ memories }, wallet.user_id, { include_deleted: true }, "json");
    const full = sha().update(canonical(wallet));
    for (let after: string | null = null, first = true; first || after !== null; first = false) {
      const page = await transfer.memories(wallet.user_id, after, 500, now);
      // `tie` is left out: it counts expired memories, which a copy leaves behind
      for (const { embedding, tie: _tie, ...item } of page.items) {
        full.update(canonical(item)).update(new Uint8Array(embedding.buffer, embedding.byteOffset, embedding.byteLength));
      }
      after = page.next;
    }
    full.update(canonical(await transfer.relations(wallet.user_id, now)));
    digests.set(wallet.address, { export: sha().update(JSON.stringify(answer)).digest("hex"), full: full.digest("hex") });
  }
  return digests;
}
