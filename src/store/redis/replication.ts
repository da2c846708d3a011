import { WriteNotReplicated } from "../../domain/store-port";
import type { Commands } from "./nodes";

/** How long a write waits for its replicas (REDIS_WAIT_REPLICAS) before it is answered 503. */
export const WAIT_TIMEOUT_MS = 1000;

/**
 * REDIS_WAIT_REPLICAS: a write is acknowledged only once `replicas` replicas have it (Redis WAIT
 * on the connection that wrote it, i.e. the master holding the wallet), so a failover that promotes
 * one of them keeps it. Without it (0), a write is acknowledged once the master applied it: on
 * failover the promoted replica lacks whatever had not replicated yet.
 */
export class Replication {
  constructor(private readonly replicas: number) {}

  /** After a write sent through `node`: returns once enough replicas have it, else throws WriteNotReplicated. */
  async confirm(node: Commands): Promise<void> {
    if (this.replicas <= 0) return;
    const acknowledged = Number(await node.sendCommand(["WAIT", String(this.replicas), String(WAIT_TIMEOUT_MS)]));
    if (acknowledged < this.replicas) throw new WriteNotReplicated(acknowledged, this.replicas, WAIT_TIMEOUT_MS);
  }
}
