/**
 * The checkpointer's thread (checkpointer.ts): its own connection per database file, a PASSIVE
 * checkpoint of each every interval. PASSIVE never waits for readers or writers: it copies what
 * it can and the next round copies the rest.
 */
import { Database } from "bun:sqlite";
import type { CheckpointerMessage } from "./checkpointer";

declare const self: Worker;

const connections = new Map<string, Database>();

self.onmessage = (event: MessageEvent<CheckpointerMessage>) => {
  const msg = event.data;
  if (msg.type === "add") {
    if (connections.has(msg.path)) return;
    const db = new Database(msg.path);
    db.exec("pragma busy_timeout = 1000;");
    connections.set(msg.path, db);
  } else if (msg.type === "remove") {
    connections.get(msg.path)?.close();
    connections.delete(msg.path);
  } else if (msg.type === "interval") {
    setInterval(checkpointAll, msg.ms);
  }
};

function checkpointAll(): void {
  for (const [path, db] of connections) {
    try {
      db.exec("pragma wal_checkpoint(PASSIVE);");
    } catch (error) {
      // busy or gone: the writer's own auto-checkpoint is the safety net; say so once per failure
      postMessage({ type: "error", path, message: error instanceof Error ? error.message : String(error) });
    }
  }
}
