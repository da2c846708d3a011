/**
 * The memory explorer in a real headless Chromium (Debian's `chromium`, driven by playwright-core):
 * sign in (pasted token, then an injected EIP-1193 wallet that signs with a test key), list, keyword
 * search, recall with its signals, a memory's detail, pin, the graph (click a node), stats, delete.
 * Screenshots go to .cache/explorer-screenshots/ (or $EXPLORER_SCREENSHOTS). Skips when
 * /usr/bin/chromium is absent; .ci/run installs it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { Client, startService, type TestService } from "./helpers/harness";

const CHROMIUM = "/usr/bin/chromium";
const available = existsSync(CHROMIUM);
if (!available) console.warn(`[explorer-browser] skipped: ${CHROMIUM} is absent (install it with: apt-get install -y --no-install-recommends chromium; .ci/run does)`);

const SHOTS = process.env.EXPLORER_SCREENSHOTS ?? resolve(import.meta.dir, "../.cache/explorer-screenshots");
const FACTS = [
  { content: "The user drinks black coffee every morning before stand-up", memory_type: "preference", tags: ["habits"] },
  { content: "Coffee after 3pm keeps the user awake, so suggest tea in the afternoon", memory_type: "correction", tags: ["habits", "health"] },
  { content: "The team decided to deploy the billing service on Fridays only after review", memory_type: "decision", tags: ["deploys"] },
  { content: "Project Atlas migrates the search cluster to Redis 8 by the end of the quarter", memory_type: "project", tags: ["atlas"] },
  { content: "Build times dropped by half after caching the embedding model in CI", memory_type: "observation", tags: ["ci"] },
];

describe.skipIf(!available)("memory explorer in headless Chromium", () => {
  let service: TestService;
  let client: Client;
  let browser: Browser;
  let page: Page;
  let token: string;
  let ids: string[];
  const requested = new Set<string>();

  const shot = async (name: string) => {
    await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: name !== "graph" });
  };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    service = await startService();
    client = new Client(service);
    const stored = await client.post("/v1/store/batch", { memories: FACTS.map((f) => ({ ...f, namespace: "demo", importance: 0.6 })) });
    expect(stored.status).toBe(201);
    ids = stored.body.ids;
    for (const [from, to, relation_type] of [[0, 1, "contradicts"], [1, 0, "supports"], [2, 4, "related_to"], [3, 2, "derived_from"], [4, 3, "supersedes"]] as const) {
      expect((await client.post(`/v1/memories/${ids[from]}/relations`, { target_id: ids[to], relation_type })).status).toBe(201);
    }
    const ts = Math.floor(service.now() / 1000);
    const signature = await client.wallet.account.signMessage({ message: `service-auth:${ts}` });
    const session = await fetch(`${service.url}/auth/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ address: client.wallet.address, timestamp: ts, signature }),
    });
    token = ((await session.json()) as { token: string }).token;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on("request", (r) => requested.add(new URL(r.url()).origin));
    page.on("pageerror", (e) => console.error("[explorer-browser] page error:", e.message));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  test("a wrong token shows the API's error message; the pasted session token signs in and lists the memories", async () => {
    await page.goto(`${service.url}/explorer`);
    await page.getByLabel("Session token").fill("not-a-token");
    await page.getByLabel("Session token").press("Enter");
    await page.locator("#notice.error").waitFor();
    expect((await page.locator("#notice").textContent())!.length).toBeGreaterThan(3);
    await page.getByLabel("Session token").fill(token);
    await page.getByRole("button", { name: "Use token" }).click();
    await page.locator("#list-count").waitFor();
    expect(await page.locator("#list-count").textContent()).toBe("1–5 of 5 memories");
    expect(await page.locator(".memory-row").count()).toBe(5);
    expect(await page.locator(".memory-row").first().textContent()).toContain("Build times dropped");
    // filters: type
    await page.getByLabel("Type").selectOption("decision");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.locator("#list-count", { hasText: "of 1 memories" }).waitFor();
    await page.getByLabel("Type").selectOption("");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.locator("#list-count", { hasText: "of 5 memories" }).waitFor();
    await shot("list");
  });

  test("keyword search, then recall with a bar per signal and the free calls it used", async () => {
    await page.getByRole("link", { name: "Search & recall" }).click();
    await page.locator("#search-query").fill("coffee");
    await page.locator("#search-query").press("Enter"); // Enter runs the keyword search (the form's first button)
    await page.locator("#search-count").waitFor();
    expect(await page.locator("#search-count").textContent()).toBe("2 keyword matches");
    const before = (await client.get("/v1/free-tier/status")).body.free_tier_remaining;
    await page.getByRole("button", { name: "Recall (paid)" }).click();
    await page.locator(".signals").first().waitFor();
    expect(await page.locator(".memory-row").first().textContent()).toContain("coffee");
    expect(await page.locator(".memory-row").first().locator(".signal dt").allTextContents()).toEqual(["vector", "keyword", "recency", "importance", "decay", "access"]);
    expect((await client.get("/v1/free-tier/status")).body.free_tier_remaining).toBe(before - 1);
    await page.locator("#free-calls", { hasText: `Free calls left: ${before - 1} of` }).waitFor();
    await shot("recall");
  });

  test("a memory's detail shows its relations; pin and edit write through the API, with history", async () => {
    await page.locator(".memory-link", { hasText: "black coffee" }).first().click();
    await page.locator("article.detail").waitFor();
    expect(await page.locator("article.detail").getAttribute("data-id")).toBe(ids[0]!);
    expect(await page.locator(".relations li").count()).toBe(2);
    await page.locator("#pin-button").click();
    await page.locator('#pin-button[aria-pressed="true"]').waitFor();
    expect((await client.get(`/v1/memories/${ids[0]}`)).body.pinned).toBe(true);
    await page.getByLabel("Importance").fill("0.9");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.locator("#notice", { hasText: "Saved." }).waitFor();
    expect((await client.get(`/v1/memories/${ids[0]}`)).body.importance).toBe(0.9);
    expect(await page.locator(".history li").count()).toBeGreaterThanOrEqual(1);
    // each change reads old → new, from the entry's before snapshot
    await page.locator(".history .change", { hasText: "importance: " }).first().waitFor();
    expect(await page.locator(".history .change", { hasText: "importance: " }).first().textContent()).toMatch(/^importance: [0-9.]+ → 0\.9$/);
    await shot("detail");
    // Escape leaves the detail (from outside a text field)
    await page.locator("#pin-button").focus();
    await page.keyboard.press("Escape");
    await page.locator("#search-title").waitFor();
  });

  test("the graph opens on every namespace: the memories of `demo` are drawn with no namespace given", async () => {
    await page.goto(`${service.url}/explorer#/graph`);
    await page.locator("#graph[data-nodes]").waitFor();
    expect(await page.locator("#graph").getAttribute("data-nodes")).toBe("5");
    expect(await page.locator("#graph-count").textContent()).toBe("5 memories, 5 relations");
    expect(await page.getByLabel("Namespace").inputValue()).toBe("");
  });

  test("the graph of a namespace draws every memory and relation with cytoscape; clicking a node opens it", async () => {
    await page.goto(`${service.url}/explorer#/graph?namespace=demo`);
    await page.locator("#graph canvas").first().waitFor();
    await page.locator("#graph[data-nodes]").waitFor();
    expect(await page.locator("#graph").getAttribute("data-nodes")).toBe("5");
    expect(await page.locator("#graph").getAttribute("data-edges")).toBe("5");
    expect(await page.locator("#graph-count").textContent()).toBe("5 memories, 5 relations");
    await shot("graph");
    // where cytoscape drew the node of ids[3] (cytoscape keeps its instance on the container as _cyreg.cy)
    // (globalThis, not window/document: this file is type-checked without the DOM library)
    const at = await page.evaluate((id) => {
      const container = (globalThis as any).document.getElementById("graph") as { _cyreg: { cy: any }; getBoundingClientRect(): { left: number; top: number } };
      const p = container._cyreg.cy.getElementById(id).renderedPosition();
      const box = container.getBoundingClientRect();
      return { x: box.left + p.x, y: box.top + p.y };
    }, ids[3]!);
    await page.mouse.click(at.x, at.y);
    await page.locator(`article.detail[data-id="${ids[3]}"]`).waitFor();
  });

  test("stats chart types and namespaces and show the free tier; deleting a memory removes it from the list", async () => {
    await page.getByRole("link", { name: "Stats" }).click();
    await page.locator("svg.chart").nth(2).waitFor();
    // growth: cumulative counts, the last one is every memory stored
    const growth = page.getByRole("img", { name: "Memories stored over time" });
    const values = (await growth.locator("text.chart-value").allTextContents()).map(Number);
    expect(values.length).toBeGreaterThan(0);
    expect(values.at(-1)).toBe(5);
    expect([...values].sort((a, b) => a - b)).toEqual(values);
    expect(await page.getByRole("img", { name: "Memories by type" }).locator("rect").count()).toBe(5);
    expect(await page.locator("#free-tier").textContent()).toContain(client.wallet.address.toLowerCase().slice(2, 8));
    await shot("stats");
    await page.goto(`${service.url}/explorer#/memory/${ids[4]}`);
    await page.locator(`article.detail[data-id="${ids[4]}"]`).waitFor();
    page.once("dialog", (dialog) => void dialog.accept());
    await page.locator("#delete-button").click();
    await page.locator("#list-count", { hasText: "of 4 memories" }).waitFor();
    expect((await client.get(`/v1/memories/${ids[4]}`)).status).toBe(404);
  });

  test("an injected EIP-1193 wallet signs the auth message and gets a session", async () => {
    const context = await browser.newContext();
    const walletPage = await context.newPage();
    await walletPage.exposeFunction("__testWalletSign", (hex: string) => client.wallet.account.signMessage({ message: { raw: hex as `0x${string}` } }));
    await walletPage.addInitScript((address: string) => {
      const w = globalThis as unknown as { ethereum: unknown; __testWalletSign(hex: string): Promise<string> };
      w.ethereum = {
        request: async ({ method, params }: { method: string; params?: unknown[] }) => {
          if (method === "eth_requestAccounts" || method === "eth_accounts") return [address];
          if (method === "personal_sign") return w.__testWalletSign(params![0] as string);
          throw new Error(`unsupported: ${method}`);
        },
      };
    }, client.wallet.address);
    walletPage.on("request", (r) => requested.add(new URL(r.url()).origin));
    await walletPage.goto(`${service.url}/explorer`);
    await walletPage.getByRole("button", { name: "Sign in with browser wallet" }).click();
    await walletPage.locator("#list-count", { hasText: "of 4 memories" }).waitFor();
    expect(await walletPage.locator("#account .wallet").getAttribute("title")).toBe(client.wallet.address.toLowerCase());
    await context.close();
  });

  test("the page asked nothing of any other origin", () => {
    expect([...requested]).toEqual([service.url]);
  });
});
