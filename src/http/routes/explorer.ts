import { Elysia } from "elysia";
import { explorerPage, explorerScript, explorerStyles, type Asset } from "../../explorer/assets";

/** Same-origin only: the page loads nothing from elsewhere and talks to this service alone. */
const CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const serve = async (asset: Promise<Asset>) => {
  const { body, contentType } = await asset;
  return new Response(body, {
    headers: { "content-type": contentType, "cache-control": "no-cache", "content-security-policy": CSP, "x-content-type-options": "nosniff" },
  });
};

/** The memory explorer web page (src/explorer); not part of the API, so not in the OpenAPI document. */
export const explorerRoutes = () =>
  new Elysia({ detail: { hide: true } })
    .get("/explorer", () => serve(explorerPage()), { detail: { hide: true } })
    .get("/explorer/app.js", () => serve(explorerScript()), { detail: { hide: true } })
    .get("/explorer/styles.css", () => serve(explorerStyles()), { detail: { hide: true } });
