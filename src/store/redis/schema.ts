import { createHash } from "node:crypto";
import type { Keys } from "./keys";
import type { Commands, RedisNodes } from "./nodes";
import { log } from "../../log";

/**
 * The RediSearch index over the memory documents (memory-doc.ts). TAG fields are CASESENSITIVE
 * (namespaces "Work" and "work" are different) and read the TAG forms in `$.ix` (query.ts
 * tagForm); JSON strings are never split at a separator. TEXT has no stemming and no stopwords (the
 * domain chooses the terms; BM25 sees exactly the words the sqlite engine's FTS5 sees).
 * Fields used by FT.AGGREGATE reducers or SORTBY are SORTABLE (UNF: values as stored).
 */
function schemaArgs(dimension: number): string[] {
  const tag = (path: string, as: string, ...opts: string[]) => [path, "AS", as, "TAG", "CASESENSITIVE", ...opts];
  const numeric = (path: string, as: string, ...opts: string[]) => [path, "AS", as, "NUMERIC", ...opts];
  return [
    ...tag("$.ix.user_id", "user_id"),
    ...tag("$.ix.namespace", "namespace", "SORTABLE", "UNF"),
    ...tag("$.ix.session_id", "session_id"),
    ...tag("$.ix.agent_id", "agent_id"),
    ...tag("$.m.memory_type", "memory_type", "SORTABLE", "UNF"),
    ...tag("$.ix.tags[*]", "tags"),
    ...tag("$.ix.pinned", "pinned"),
    ...tag("$.ix.deleted", "deleted"),
    ...tag("$.hash", "content_hash"),
    ...["$.text", "AS", "content", "TEXT", "NOSTEM"],
    ...numeric("$.m.importance", "importance", "SORTABLE"),
    ...numeric("$.m.access_count", "access_count", "SORTABLE"),
    ...numeric("$.ix.created", "created_at", "SORTABLE"),
    ...numeric("$.ix.expires", "expires_at"),
    ...numeric("$.order", "order", "SORTABLE"),
    ...["$.embedding", "AS", "embedding", "VECTOR", "HNSW", "6", "TYPE", "FLOAT32", "DIM", String(dimension), "DISTANCE_METRIC", "COSINE"],
  ];
}

/** Identifies the schema apart from the dimension: a change here means the index is rebuilt at start-up. */
const SCHEMA_VERSION = createHash("sha1").update(JSON.stringify(schemaArgs(0))).digest("hex").slice(0, 12);

const NO_INDEX = /unknown index name|no such index|not found/i;

/**
 * Creates, inspects and migrates the index; documents are never touched (FT.DROPINDEX without DD).
 * On a cluster every master has its own index over the documents it holds (a wallet's search runs
 * on the master holding the wallet: docs/architecture.md › Redis Cluster); on a standalone server
 * that is the one index.
 */
export class SearchIndex {
  constructor(
    private readonly nodes: RedisNodes,
    private readonly keys: Keys,
  ) {}

  /** The vector dimension of the existing index (the first master that has one), or null when there is none. */
  async existingDimension(): Promise<number | null> {
    for (const master of await this.nodes.masters()) {
      const dimension = await this.dimensionOn(master.commands);
      if (dimension !== null) return dimension;
    }
    return null;
  }

  /**
   * Makes sure every master has the index with this dimension and the current schema: creates it,
   * or drops and recreates it (keeping the documents, which are then re-indexed in the background;
   * this waits until that is done). Safe to run from several processes at once.
   */
  async ensure(dimension: number): Promise<void> {
    const meta = this.nodes.at(this.keys.meta);
    const schema = (await meta.sendCommand(["HGET", this.keys.meta, "index_schema"])) as string | null;
    for (const master of await this.nodes.masters()) {
      const existing = await this.dimensionOn(master.commands);
      if (existing === dimension && schema === SCHEMA_VERSION) continue;
      if (existing !== null) await this.dropOn(master.commands);
      await this.createOn(master.commands, dimension);
    }
    await meta.sendCommand(["HSET", this.keys.meta, "index_schema", SCHEMA_VERSION]);
  }

  async drop(): Promise<void> {
    for (const master of await this.nodes.masters()) await this.dropOn(master.commands);
  }

  /**
   * FT.SEARCH or FT.AGGREGATE (`command` without the index name) on `node`. A master without the
   * index (one that joined the cluster after start-up) gets it first: created, filled, then asked.
   */
  async query(node: Commands, command: string, args: (string | Buffer)[], dimension: number): Promise<unknown> {
    const send = () => node.sendCommand([command, this.keys.index, ...args]);
    try {
      return await send();
    } catch (error) {
      if (!NO_INDEX.test((error as Error).message) || dimension === 0) throw error;
      log.warn(`[redis] a master has no index ${this.keys.index}: creating it there`);
      await this.createOn(node, dimension);
      return await send();
    }
  }

  private async dimensionOn(node: Commands): Promise<number | null> {
    let info: unknown[];
    try {
      info = (await node.sendCommand(["FT.INFO", this.keys.index])) as unknown[];
    } catch (error) {
      if (NO_INDEX.test((error as Error).message)) return null;
      throw error;
    }
    const attributes = field(info, "attributes") as unknown[][] | undefined;
    for (const attribute of attributes ?? []) {
      if (String(field(attribute, "attribute")) !== "embedding") continue;
      const dim = field(attribute, "dim") ?? field(attribute, "DIM");
      if (dim !== undefined) return Number(dim);
    }
    return 0; // an index without a readable dimension: treated as a mismatch, so it is rebuilt
  }

  private async dropOn(node: Commands): Promise<void> {
    try {
      await node.sendCommand(["FT.DROPINDEX", this.keys.index]);
    } catch (error) {
      if (!NO_INDEX.test((error as Error).message)) throw error;
    }
  }

  private async createOn(node: Commands, dimension: number): Promise<void> {
    try {
      await node.sendCommand([
        "FT.CREATE", this.keys.index, "ON", "JSON", "PREFIX", "1", this.keys.memoryPrefix, "STOPWORDS", "0",
        "SCHEMA", ...schemaArgs(dimension),
      ]);
    } catch (error) {
      if (!/already exists/i.test((error as Error).message)) throw error;
    }
    await this.waitUntilIndexed(node);
  }

  private async waitUntilIndexed(node: Commands): Promise<void> {
    for (let waited = 0; ; waited += 50) {
      const info = (await node.sendCommand(["FT.INFO", this.keys.index])) as unknown[];
      if (Number(field(info, "indexing") ?? 0) === 0) return;
      if (waited > 0 && waited % 5000 === 0) {
        log.info(`[redis] indexing existing memories: ${(Number(field(info, "percent_indexed") ?? 0) * 100).toFixed(0)}%`);
      }
      await Bun.sleep(50);
    }
  }
}

/** The value after `name` in a flat RESP2 [name, value, …] list. */
function field(list: unknown[], name: string): unknown {
  for (let i = 0; i + 1 < list.length; i += 2) if (String(list[i]) === name) return list[i + 1];
  return undefined;
}
