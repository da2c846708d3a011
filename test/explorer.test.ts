import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MEMORY_TYPES, RELATION_TYPES } from "../src/domain/memory";
import * as explorer from "../src/explorer/types";
import { startService, type TestService } from "./helpers/harness";

/** Any http(s) URL left once the legal comments (/*! … *\/, licence notices kept by the bundler) are set aside. */
const externalUrls = (text: string) =>
  (text.replace(/\/\*![\s\S]*?\*\//g, "").match(/https?:\/\/[^\s"'`)<>]+/g) ?? [])
    // an XML namespace is an identifier (createElementNS), never fetched
    .filter((url) => url !== "http://www.w3.org/2000/svg" && url !== "http://www.w3.org/1999/xhtml" && url !== "http://www.w3.org/1999/xlink");

describe("GET /explorer serves the memory explorer", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService();
  });
  afterAll(() => service.stop());

  const get = async (path: string) => {
    const res = await fetch(service.url + path);
    return { status: res.status, type: res.headers.get("content-type") ?? "", csp: res.headers.get("content-security-policy") ?? "", body: await res.text() };
  };

  test("the page is HTML that loads its script and stylesheet from this service, under a same-origin CSP", async () => {
    const page = await get("/explorer");
    expect(page.status).toBe(200);
    expect(page.type).toBe("text/html; charset=utf-8");
    expect(page.body).toContain('<script type="module" src="/explorer/app.js"></script>');
    expect(page.body).toContain('<link rel="stylesheet" href="/explorer/styles.css" />');
    expect(page.csp).toContain("default-src 'none'");
    expect(page.csp).toContain("connect-src 'self'");
    for (const ref of page.body.matchAll(/(?:src|href)="([^"#]+)"/g)) expect((await get(ref[1]!)).status).toBe(200);
  });

  test("the bundled script is JavaScript with cytoscape inside, the stylesheet CSS", async () => {
    const script = await get("/explorer/app.js");
    expect(script.status).toBe(200);
    expect(script.type).toBe("text/javascript; charset=utf-8");
    expect(script.body.length).toBeGreaterThan(100_000); // cytoscape is bundled, not fetched
    // booleans, not toContain: a failure would print the whole bundle
    expect(script.body.includes('"3.34.4"')).toBe(true); // cytoscape's version string
    expect(script.body.includes("/v1/memories")).toBe(true);
    const styles = await get("/explorer/styles.css");
    expect(styles.status).toBe(200);
    expect(styles.type).toBe("text/css; charset=utf-8");
  });

  test("no served asset names another host", async () => {
    for (const path of ["/explorer", "/explorer/app.js", "/explorer/styles.css"]) {
      const { body } = await get(path);
      expect({ path, urls: externalUrls(body) }).toEqual({ path, urls: [] });
    }
  });

  test("an unknown asset is a 404 with the nested error body; the page is not in the OpenAPI document", async () => {
    const missing = await fetch(`${service.url}/explorer/nothing.js`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBeString();
    const openapi = (await (await fetch(`${service.url}/swagger/json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(openapi.paths).filter((p) => p.startsWith("/explorer"))).toEqual([]);
  });

  test("the page's memory and relation types are the server's", () => {
    expect([...explorer.MEMORY_TYPES]).toEqual(MEMORY_TYPES);
    expect([...explorer.RELATION_TYPES]).toEqual(RELATION_TYPES);
  });
});
