import { WriteNotReplicated } from "../../domain/store-port";
import type { Commands, RedisNodes } from "./nodes";

/** How long a write waits for its replicas (REDIS_WAIT_REPLICAS) before it is answered 503. */
export const WAIT_TIMEOUT_MS = 1000;

/**
 * REDIS_WAIT_REPLICAS: a write is acknowledged only once `replicas` replicas have it (Redis WAIT
 * on the connection that wrote it, i.e. the master holding the wallet), so a failover that promotes
 * one of them keeps it. Without it (0), a write is acknowledged once the master applied it: on
 * failover the promoted replica lacks whatever had not replicated yet.
 */
export class Replication {
  constructor(
    private readonly nodes: RedisNodes,
    private readonly replicas: number,
  ) {}

  /**
   * Runs `write` (one step: a script or a MULTI, sent through the commands it is given) on the
   * master holding `key`, then, unless `changed` says the write changed nothing, returns once
   * enough replicas have it, else throws WriteNotReplicated. Waiting for replicas, the write and its
   * WAIT go on a connection of their own (RedisNodes.exclusive): a pending WAIT holds up every
   * command after it on its connection, other wallets' requests included.
   */
  async write<T>(key: string, write: (node: Commands) => Promise<T>, changed: (result: T) => boolean = () => true): Promise<T> {
    if (this.replicas <= 0) return write(this.nodes.at(key));
    return this.nodes.exclusive(key, async (node) => {
      const result = await write(node);
      if (changed(result)) await this.confirm(node);
      return result;
    });
  }

  /** After a write sent through `node`: returns once enough replicas have it, else throws WriteNotReplicated. */
  private async confirm(node: Commands): Promise<void> {
    const acknowledged = Number(await node.sendCommand(["WAIT", String(this.replicas), String(WAIT_TIMEOUT_MS)]));
    if (acknowledged < this.replicas) throw new WriteNotReplicated(acknowledged, this.replicas, WAIT_TIMEOUT_MS);
  }
}
