import type { Static, TSchema } from "elysia";
import { Value } from "@sinclair/typebox/value";
import { invalid } from "../domain/errors";

/** Validates a value the framework could not (e.g. one item of a batch); 422 naming the field and rule. */
export function checked<S extends TSchema>(schema: S, value: unknown): Static<S> {
  const first = Value.Errors(schema, value).First();
  if (first) throw invalid(`${first.path.slice(1).replaceAll("/", ".") || "item"}: ${first.message}`);
  return value as Static<S>;
}
