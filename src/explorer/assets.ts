/** The explorer's static assets, served from memory: the page, its stylesheet and app.ts bundled for the browser by Bun's bundler. */
import { join } from "node:path";

export interface Asset {
  body: string;
  contentType: string;
}

const dir = import.meta.dir;
let bundled: Promise<Asset> | null = null;

/** Bundles app.ts (and cytoscape) once, on first request; about half a second. */
export function explorerScript(): Promise<Asset> {
  bundled ??= (async () => {
    const result = await Bun.build({
      entrypoints: [join(dir, "app.ts")],
      target: "browser",
      format: "esm",
      minify: true,
      define: { "process.env.NODE_ENV": JSON.stringify("production") },
    });
    const js = result.outputs.find((o) => o.kind === "entry-point");
    if (!result.success || !js) {
      bundled = null;
      throw new Error(`explorer bundle failed: ${result.logs.map(String).join("\n")}`);
    }
    return { body: await js.text(), contentType: "text/javascript; charset=utf-8" };
  })();
  return bundled;
}

export const explorerPage = async (): Promise<Asset> => ({ body: await Bun.file(join(dir, "index.html")).text(), contentType: "text/html; charset=utf-8" });
export const explorerStyles = async (): Promise<Asset> => ({ body: await Bun.file(join(dir, "styles.css")).text(), contentType: "text/css; charset=utf-8" });
