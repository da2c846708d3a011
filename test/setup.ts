/**
 * Preloaded before every test file (bunfig.toml): builds the local embedding model once on a fresh
 * machine, so no test's hook has to wait for the build.
 */
import { ensureGloveModel } from "../src/embed/glove-model";
import { MODEL_CACHE_DIR } from "./helpers/harness";

await ensureGloveModel({ cacheDir: MODEL_CACHE_DIR });
