/**
 * The fact thread's worker (fact-thread.ts): reads the fact signatures of the texts it is sent,
 * one request after another, with its own English model (loaded on the first request).
 */
import { factSignature } from "../domain/fact-signature.ts";
import type { FactsAnswer, FactsRequest } from "./fact-thread.ts";

declare var self: Worker;

self.onmessage = ({ data: { id, texts } }: MessageEvent<FactsRequest>) => {
  let answer: FactsAnswer;
  try {
    answer = { id, signatures: texts.map((text) => [...factSignature(text)]) };
  } catch (err) {
    answer = { id, error: err instanceof Error ? err.message : String(err) };
  }
  self.postMessage(answer);
};
