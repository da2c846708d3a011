import { expect } from "bun:test";
import { sendJson, type Client, type Reply, type TestService } from "./harness";

/** Shared helpers of the contract suite (test/contract). */

export type { Reply };

/** A request with exactly the given headers: no x-wallet-auth is added. */
export function raw(service: TestService, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  return sendJson(fetch, service.url + path, method, body, headers);
}

let counter = 0;
/** A namespace no other test uses: keeps list filters and dedup (per namespace) apart. */
export const uniqueNs = (label: string) => `${label}-${++counter}-${crypto.randomUUID().slice(0, 6)}`;

export const MISSING_ID = "00000000-0000-4000-8000-000000000000";

/** ISO time `ms` from the service's (movable) clock. */
export const isoFromNow = (service: TestService, ms: number) => new Date(service.now() + ms).toISOString();

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** Stores one memory and returns its id; fails the test unless a new memory was created. */
export async function storeOne(client: Client, body: Record<string, unknown>): Promise<string> {
  const res = await client.post("/v1/store", body);
  expect(res.status).toBe(201);
  expect(res.body.deduplicated).toBe(false);
  return res.body.id as string;
}

/**
 * Stores several memories in one batch; fails the test unless each became a new memory. Typed as a
 * tuple so destructuring the ids needs no `!` (the count is asserted).
 */
export async function storeMany(client: Client, items: Record<string, unknown>[]): Promise<[string, string, string, ...string[]]> {
  const res = await client.post("/v1/store/batch", { memories: items });
  expect(res.status).toBe(201);
  expect(res.body.deduplicated_count).toBe(0);
  expect(res.body.count).toBe(items.length);
  return res.body.ids as [string, string, string, ...string[]];
}

/** The nested error body every error answer has: `{error: {code, message, details}}`. */
export function expectError(res: Reply, status: number, code: string): void {
  expect(res.status).toBe(status);
  // (explicit checks: bun's toMatchObject with expect.any() writes the matchers into the received object)
  expect(res.body?.error?.code).toBe(code);
  expect(typeof res.body.error.message).toBe("string");
  expect(typeof res.body.error.details).toBe("object");
}

/** 422 VALIDATION_ERROR, rule unknown_field, naming `field` (body or query), with `declared` among the fields listed as allowed. */
export function expectUnknownField(res: Reply, field: string, declared: string[]): void {
  expectFieldError(res, field);
  expect(res.body.error.details).toMatchObject({ field, rule: "unknown_field" });
  expect(res.body.error.details.allowed).toEqual(expect.arrayContaining(declared));
  expect(res.body.error.message).toContain(`${field}: unknown field`);
}

/** A 422 VALIDATION_ERROR naming the field (in `message`, `details.field` or `details.errors[].field`). */
export function expectFieldError(res: Reply, field: string): void {
  expectError(res, 422, "VALIDATION_ERROR");
  const { message, details } = res.body.error;
  const fields = [message, details.field, ...(details.errors ?? []).map((d: { field: string }) => d.field)].join(" | ");
  expect(fields).toContain(field);
}

/** A 401 AUTH_ERROR. */
export function expect401(res: Reply): void {
  expectError(res, 401, "AUTH_ERROR");
}

/**
 * Realistic, mutually distinct memory contents (different topics, so no two are near-duplicates
 * for the dedup check). None contains the words "foo", "near", "zebra" or "quasar".
 */
export const FACTS = [
  "The user prefers dark mode in every code editor and terminal.",
  "Production deploys happen on Tuesdays after the standup meeting.",
  "The billing service is written in Go and talks to Stripe webhooks.",
  "Alice is the tech lead for the payments team since March.",
  "Use pnpm instead of npm for the monorepo because of workspace hoisting.",
  "The staging database runs PostgreSQL 15 on a single r6g.large instance.",
  "Customer support tickets are triaged in Linear with the label support-queue.",
  "The mobile app targets iOS 16 as its minimum supported version.",
  "Feature flags are managed with LaunchDarkly, never with environment variables.",
  "Bob is allergic to peanuts, so team lunches avoid Thai restaurants.",
  "Logs are shipped to Datadog with a retention of fifteen days.",
  "The marketing site is a static Astro build hosted on Cloudflare Pages.",
  "Password hashing uses argon2id with a memory cost of 64 megabytes.",
  "Quarterly planning happens in the first week of January, April, July and October.",
  "Kubernetes clusters are upgraded one minor version at a time, staging first.",
  "The design system lives in Figma and its tokens are exported to Tailwind.",
  "Sentry alerts for the checkout flow page the on-call engineer immediately.",
  "GraphQL queries deeper than seven levels are rejected by the gateway.",
  "The data warehouse is Snowflake, loaded nightly by Airflow jobs.",
  "Interns get read-only access to production dashboards during onboarding.",
  "Backups of the main database are encrypted and copied to another region hourly.",
  "Carol prefers written async updates over video calls for status reports.",
  "The public REST API is versioned in the URL path, currently at v3.",
  "Translations are handled by Crowdin and synced every Friday afternoon.",
  "Load tests run with k6 against a dedicated performance environment.",
  "Rust is used for the image resizing worker because of memory safety.",
  "The office wifi password rotates on the first Monday of each month.",
  "Invoices are generated as PDF files with a Chromium headless renderer.",
] as const;
