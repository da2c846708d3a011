// EXPERIMENT: USE-lite + PCA head fitted on unigram pseudo-sentences; writes a model folder.
import * as ort from "onnxruntime-node";
import { readUseSource } from "./src/embed/use-source.ts";
import { useFiles } from "./src/embed/use-model.ts";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AutoTokenizer } from "@huggingface/transformers";
import { prng } from "./scripts/bench/synthetic.ts";

const K = Number(process.env.K ?? 128);
const N = Number(process.env.N ?? 6000);
const src = readUseSource();
const files = useFiles(src);
const base = `/tmp/pca/base`;
mkdirSync(join(base, "onnx"), { recursive: true });
for (const [n, c] of Object.entries(files.text)) writeFileSync(join(base, n), c);
writeFileSync(join(base, "onnx/model.onnx"), files.onnx);
const tok = await AutoTokenizer.from_pretrained(base, { local_files_only: true });
const sess = await ort.InferenceSession.create(join(base, "onnx/model.onnx"));
// whole-word pieces with their probabilities
const words = src.vocab.filter(([p]) => /^\u2581[a-z]{2,}$/.test(p)).map(([p, s]) => [p.slice(1), Math.exp(s)] as [string, number]);
const total = words.reduce((a, [, p]) => a + p, 0);
const cdf: number[] = []; let acc = 0; for (const [, p] of words) cdf.push((acc += p / total));
const rng = prng(7);
const sample = () => { const r = rng(); let lo = 0, hi = cdf.length - 1; while (lo < hi) { const m = (lo + hi) >> 1; if (cdf[m]! < r) lo = m + 1; else hi = m; } return words[lo]![0]; };
const D = 512;
const X = new Float64Array(N * D);
for (let start = 0; start < N; start += 64) {
  const texts = Array.from({ length: Math.min(64, N - start) }, () => Array.from({ length: 6 + Math.floor(rng() * 14) }, sample).join(" "));
  const enc = tok(texts, { padding: true, truncation: true });
  const out = await sess.run({ input_ids: new ort.Tensor("int64", (enc.input_ids as any).data, (enc.input_ids as any).dims), attention_mask: new ort.Tensor("int64", (enc.attention_mask as any).data, (enc.attention_mask as any).dims) });
  const v = out.sentence_embedding!.data as Float32Array;
  for (let i = 0; i < v.length; i++) X[start * D + i] = v[i]!;
}
const mu = new Float64Array(D);
for (let n = 0; n < N; n++) for (let i = 0; i < D; i++) mu[i]! += X[n * D + i]! / N;
const C = new Float64Array(D * D);
for (let n = 0; n < N; n++) { const row = new Float64Array(D); for (let i = 0; i < D; i++) row[i] = X[n * D + i]! - mu[i]!; for (let i = 0; i < D; i++) { const ri = row[i]!; if (ri === 0) continue; for (let j = 0; j < D; j++) C[i * D + j]! += ri * row[j]!; } }
// subspace iteration for the top K eigenvectors
let Q = new Float64Array(D * K); for (let i = 0; i < Q.length; i++) Q[i] = rng() - 0.5;
const orth = (M: Float64Array) => { for (let c = 0; c < K; c++) { for (let p = 0; p < c; p++) { let d = 0; for (let i = 0; i < D; i++) d += M[i * K + c]! * M[i * K + p]!; for (let i = 0; i < D; i++) M[i * K + c]! -= d * M[i * K + p]!; } let nn = 0; for (let i = 0; i < D; i++) nn += M[i * K + c]! ** 2; nn = Math.sqrt(nn); for (let i = 0; i < D; i++) M[i * K + c]! /= nn; } };
orth(Q);
for (let it = 0; it < 40; it++) { const Z = new Float64Array(D * K); for (let i = 0; i < D; i++) for (let j = 0; j < D; j++) { const cij = C[i * D + j]!; if (cij === 0) continue; for (let c = 0; c < K; c++) Z[i * K + c]! += cij * Q[j * K + c]!; } orth(Z); Q = Z; }
// variance explained
let tr = 0; for (let i = 0; i < D; i++) tr += C[i * D + i]!;
let ex = 0; for (let c = 0; c < K; c++) { let s = 0; for (let i = 0; i < D; i++) { let ci = 0; for (let j = 0; j < D; j++) ci += C[i * D + j]! * Q[j * K + c]!; s += Q[i * K + c]! * ci; } ex += s; }
console.log(`K=${K} N=${N} variance explained ${(ex / tr).toFixed(3)}`);
writeFileSync(`/tmp/pca/proj-${K}.json`, JSON.stringify({ mean: Array.from(mu), components: Array.from(Q), k: K }));
const { useOnnxModel } = await import("./src/embed/use-graph.ts");
const { encodeOnnxModel } = await import("./src/embed/onnx-proto.ts");
const dir = `/tmp/pca/use-lite-${K}d`;
mkdirSync(join(dir, "onnx"), { recursive: true });
for (const [n, c] of Object.entries(files.text)) writeFileSync(join(dir, n), n === "config.json" ? c.replace('"hidden_size": 512', `"hidden_size": ${K}`) : c);
const projection = { mean: Float32Array.from(mu), components: Float32Array.from(Q), dim: K };
writeFileSync(join(dir, "onnx/model.onnx"), encodeOnnxModel(useOnnxModel(src, {}, { int8: true, projection })));
console.log("wrote", dir);
