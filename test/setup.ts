/**
 * Preloaded before every test file (bunfig.toml): builds the built-in embedding models once on a
 * fresh machine, so no test's hook has to wait for a build.
 */
import { BUILT_IN_MODEL_IDS, ensureBuiltInModel } from "../src/embed/built-in-models";
import { MODEL_CACHE_DIR } from "./helpers/harness";

for (const id of BUILT_IN_MODEL_IDS) await ensureBuiltInModel(id, MODEL_CACHE_DIR);
