/**
 * Errors the domain raises, each with the HTTP status the spec assigns to it.
 * The HTTP layer turns them into the JSON error body; nothing else maps statuses.
 * `code` is the specific reason (e.g. `immutable`, `relation_exists`); `details` carries the facts
 * a client needs (field, rule, limit, actual value's size…).
 */
export class DomainError extends Error {
  constructor(
    readonly status: 400 | 401 | 402 | 404 | 409 | 413 | 415 | 422 | 503,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const notFound = (what = "memory") => new DomainError(404, "not_found", `${what} not found`);
export const immutableConflict = (id: string) => new DomainError(409, "immutable", `memory ${id} is immutable and cannot be changed or deleted`, { id });
export const invalid = (message: string, details: Record<string, unknown> = {}) => new DomainError(422, "validation_failed", message, details);
