/**
 * `bun run start`: builds the local embedding model on first run (progress on stderr), then
 * starts the service with the environment's configuration (see docs/configuration.md).
 */
import { main } from "../src/server";

await main();
