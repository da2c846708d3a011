import type { EmbeddingModelInfo } from "../domain/store-port";

/** The store holds vectors of one model; mixing models would make similarities meaningless. */
export class EmbeddingModelMismatch extends Error {
  constructor(stored: EmbeddingModelInfo, requested: EmbeddingModelInfo) {
    super(
      `the store was embedded with "${stored.id}" (${stored.dimension}-d) but EMBEDDING_MODEL is "${requested.id}" (${requested.dimension}-d). ` +
        `Start with EMBEDDING_MODEL=${stored.id}, or migrate the store with: EMBEDDING_MODEL=${requested.id} bun run reembed`,
    );
  }
}
