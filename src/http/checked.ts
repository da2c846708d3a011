import type { Static, TSchema } from "elysia";
import { Value } from "@sinclair/typebox/value";
import { invalid } from "../domain/errors";

/** Validates a value the framework could not (e.g. one item of a batch); 422 naming the field and rule. */
export function checked<S extends TSchema>(schema: S, value: unknown): Static<S> {
  const first = Value.Errors(schema, value).First();
  if (first) throw invalid(`${first.path.slice(1).replaceAll("/", ".") || "item"}: ${first.message}`);
  return value as Static<S>;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A `transform` hook for bodies with optional nested objects. Elysia's default normalizer
 * (exact-mirror) rebuilds nested objects from the schema *before* validating them, so a string,
 * number or array sent where an object belongs comes out as `{}` or `{"0":"a",…}` and passes.
 * This rejects such values first, with a 422 naming the field.
 */
export const nestedObjects = (...fields: string[]) => nestedShape(fields, isPlainObject, "object");

/** The same guard for array fields (a string would otherwise be read as an array of characters). */
export const nestedArrays = (...fields: string[]) => nestedShape(fields, Array.isArray, "array");

function nestedShape(fields: string[], isShape: (value: unknown) => boolean, shape: string) {
  return ({ body }: { body: unknown }): void => {
    if (!isPlainObject(body)) return;
    for (const field of fields) {
      const value = body[field];
      if (value !== undefined && !isShape(value)) throw invalid(`body/${field}: Expected ${shape}`);
    }
  };
}
