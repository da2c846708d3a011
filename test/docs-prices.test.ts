/** docs/payments.md's price table lists exactly the routes the code charges for, at the code's prices. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { marked, type Tokens } from "marked";
import { createApp } from "../src/http/app";
import type { Paywall } from "../src/billing/paywall";
import { PAID_ROUTES, PRICE_VARIABLES, PRICES_USDC, type PaidRoute } from "../src/billing/prices";
import { startService, TestWallet, type TestService } from "./helpers/harness";

const root = resolve(import.meta.dir, "..");

/** Thrown by the recording paywall: the handler asked to charge `route`. */
class Charged extends Error {
  constructor(readonly route: PaidRoute) {
    super(`charged as ${route}`);
  }
}

/**
 * The priced routes, from the route table itself: every handler of the app runs once with a
 * paywall that records the price it is asked to charge and stops there. A paid handler charges
 * before any work (that is what makes a failing call free), so it needs no valid request; a free
 * handler runs to its end or fails on the empty request, and records nothing.
 */
async function pricedRoutes(service: TestService): Promise<Map<string, PaidRoute>> {
  const paywall = { charge: async (_wallet: string, route: PaidRoute) => Promise.reject(new Charged(route)) } as unknown as Paywall;
  const app = createApp({ ...service.deps, paywall });
  const wallet = new TestWallet().address;
  const priced = new Map<string, PaidRoute>();
  for (const route of app.routes) {
    if (typeof route.handler !== "function") continue; // a static answer (the OpenAPI page) charges nothing
    const context = {
      body: {},
      query: {},
      params: { id: crypto.randomUUID(), relationId: crypto.randomUUID() },
      headers: {},
      cookie: {},
      wallet,
      userId: crypto.randomUUID(),
      request: new Request(`http://engram.test${route.path}`, { method: route.method }),
      set: { headers: {}, status: 200 },
      setHeader: () => {},
      path: route.path,
      route: route.path,
    };
    try {
      await (route.handler as (context: unknown) => unknown)(context);
    } catch (error) {
      if (error instanceof Charged) priced.set(`${route.method} ${route.path}`, error.route);
    }
  }
  return priced;
}

/** The rows of the table headed `Endpoint | Price (USDC) | Override`: endpoint, leading price, first variable named. */
function documentedPrices(markdown: string): { endpoint: string; price: string; variable: string }[] {
  const tables = marked.lexer(markdown, { gfm: true }).filter((t): t is Tokens.Table => t.type === "table");
  const table = tables.find((t) => t.header.map((cell) => cell.text).join("|") === "Endpoint|Price (USDC)|Override");
  if (!table) throw new Error("docs/payments.md has no table headed Endpoint | Price (USDC) | Override");
  return table.rows.map(([endpoint, price, override]) => ({
    endpoint: /^([A-Z]+ \/\S*)/.exec(endpoint!.text.replaceAll("`", ""))?.[1] ?? endpoint!.text,
    price: /^[0-9.]+/.exec(price!.text)?.[0] ?? price!.text,
    variable: /`([A-Z0-9_]+)`/.exec(override!.text)?.[1] ?? override!.text,
  }));
}

let service: TestService;
let priced: Map<string, PaidRoute>;
beforeAll(async () => {
  service = await startService();
  priced = await pricedRoutes(service);
});
afterAll(() => service.stop());

test("every price of the price list is charged by some route (so the derivation sees them all)", () => {
  expect([...new Set(priced.values())].sort()).toEqual([...PAID_ROUTES].sort());
});

test("docs/payments.md lists the priced routes, no more and no fewer, with the price and override each is charged", () => {
  const rows = documentedPrices(readFileSync(join(root, "docs/payments.md"), "utf8"));
  expect(rows.map((r) => r.endpoint).sort()).toEqual([...priced.keys()].sort());
  const expected = rows.map(({ endpoint }) => {
    const route = priced.get(endpoint);
    return { endpoint, price: route ? PRICES_USDC[route] : "(not charged)", variable: route ? PRICE_VARIABLES[route] : "(not charged)" };
  });
  expect(rows).toEqual(expected);
});
