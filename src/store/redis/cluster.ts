import calculateSlot from "cluster-key-slot";
import { ClientOfflineError, MultiErrorReply, type RedisClusterType } from "redis";
import { ConnectionPool, OwnConnection, type Duplicable } from "./connection-pool";
import type { Batch, Command, Commands, MasterNode, RedisNodes } from "./nodes";
import { batchBound, commandBound, countedClient, isOffline, roundTrip } from "./round-trips";

export type Cluster = RedisClusterType<{}, {}, {}, 2>;

/** The parts of node-redis' per-node client used here. */
interface NodeClient {
  readonly isReady: boolean;
  sendCommand(args: Command): Promise<unknown>;
  multi(): NodeBatch;
}
interface NodeBatch {
  addCommand(args: Command): unknown;
  exec(): Promise<unknown[]>;
  execAsPipeline(): Promise<unknown[]>;
}

const isRedirect = (error: unknown) => error instanceof Error && /^(MOVED|ASK) /.test(error.message);
/** A redirect, or a batch one of whose commands was redirected. */
const wasRedirected = (error: unknown) => isRedirect(error) || (error instanceof MultiErrorReply && error.errorIndexes.some((i) => isRedirect(error.replies[i])));

/**
 * A Redis Cluster through node-redis' cluster client. Every command of the engine concerns one
 * slot (a wallet, or a global key: keys.ts), and goes to that slot's master as node-redis knows it.
 *
 * Why not `cluster.sendCommand` for everything: node-redis routes commands that name no key
 * (FT.SEARCH, FT.AGGREGATE, WAIT, SCRIPT LOAD) to a random node or to every shard, while the
 * engine needs them on the master holding the wallet; and it picks a key's node asynchronously,
 * while the access log (../access-log.ts) needs a read sent right after a view was taken to reach
 * the connection before a flush's writes do. So a command is written straight to the master's
 * connection, synchronously when that connection is ready. A node that answers MOVED or ASK (the
 * slot moved: resharding, or a failover the client has not seen yet) ran nothing; the command is
 * then sent again through the cluster client, which follows the redirect and refreshes its slot map.
 */
export class ClusterNodes implements RedisNodes {
  readonly cluster = true;
  /** connections of their own (`exclusive`), per master address */
  private readonly own = new Map<string, ConnectionPool<OwnConnection>>();

  /** `timeoutMs` bounds every round trip (round-trips.ts); `onError` hears the errors of the connections opened for `exclusive`. */
  constructor(
    private readonly client: Cluster,
    private readonly timeoutMs: number,
    private readonly onError: (error: Error) => void,
  ) {}

  at(key: string): Commands {
    return new SlotCommands(this.client, key, this.timeoutMs);
  }

  /**
   * On a connection of its own to the slot's master as node-redis knows it. A redirect means that
   * master no longer holds the slot and the step that got it did not run: `work` runs again through
   * `at(key)`, which follows the redirect and refreshes the slot map (its WAIT then shares the new
   * master's connection, as it did before connections of their own; only during the failover).
   */
  async exclusive<T>(key: string, work: (node: Commands) => Promise<T>): Promise<T> {
    const master = this.client.slots[calculateSlot(key)]?.master;
    if (!master) return work(this.at(key));
    try {
      return await this.poolOf(master).run((connection) => work(connection.commands));
    } catch (error) {
      if (!wasRedirected(error)) throw error;
      return work(this.at(key));
    }
  }

  /** The master's pool. A new master (a promoted replica) closes the pools of addresses that are masters no more. */
  private poolOf(master: Cluster["masters"][number]): ConnectionPool<OwnConnection> {
    let pool = this.own.get(master.address);
    if (pool) return pool;
    const current = new Set(this.client.masters.map((node) => node.address));
    for (const [address, stale] of this.own) {
      if (current.has(address)) continue;
      stale.close();
      this.own.delete(address);
    }
    const shared = async () => (await this.client.nodeClient(master)) as unknown as Duplicable;
    pool = new ConnectionPool(() => new OwnConnection(shared, this.onError, this.timeoutMs), this.timeoutMs);
    this.own.set(master.address, pool);
    return pool;
  }

  nodeOf(key: string): string {
    return this.client.slots[calculateSlot(key)]?.master.address ?? "(no master)";
  }

  async masters(): Promise<MasterNode[]> {
    return Promise.all(
      this.client.masters.map(async (master) => ({
        name: master.address,
        commands: countedClient((await this.client.nodeClient(master)) as unknown as Commands, this.timeoutMs),
      })),
    );
  }

  async close(): Promise<void> {
    for (const pool of this.own.values()) pool.close();
    await this.client.close();
  }
}

class SlotCommands implements Commands {
  constructor(
    readonly cluster: Cluster,
    readonly key: string,
    readonly timeoutMs: number,
  ) {}

  sendCommand(args: Command): Promise<unknown> {
    const reply = this.onMaster((node) => node.sendCommand(args), () => this.cluster.sendCommand(this.key, false, [...args]));
    return roundTrip("command", reply, commandBound(args, this.timeoutMs));
  }

  multi(): Batch {
    return new SlotBatch(this);
  }

  /**
   * `send` on the slot's master; after a redirect, `redirected` (through the cluster client). A
   * master whose connection is down (reconnecting) refuses at once, as node-redis does a command
   * (client.ts OFFLINE_QUEUE_OFF), batches included, which it would otherwise hold until reconnected.
   */
  onMaster<T>(send: (node: NodeClient) => Promise<T>, redirected: () => Promise<T>): Promise<T> {
    const ready = this.readyMaster();
    const reply = ready
      ? send(ready)
      : this.cluster.getNodeClientForKey(this.key).then((node) => (isOffline(node) ? Promise.reject(new ClientOfflineError()) : send(node as unknown as NodeClient)));
    return reply.catch((error: unknown) => {
      if (isRedirect(error)) return redirected();
      throw error;
    });
  }

  /** The connection to the slot's master, when it is up (otherwise node-redis connects or waits for it). */
  private readyMaster(): NodeClient | undefined {
    const client = this.cluster.slots[calculateSlot(this.key)]?.master.client as NodeClient | undefined;
    return client?.isReady ? client : undefined;
  }
}

class SlotBatch implements Batch {
  private readonly commands: Command[] = [];

  constructor(private readonly slot: SlotCommands) {}

  addCommand(args: Command): Batch {
    this.commands.push(args);
    return this;
  }

  /** MULTI/EXEC on the master; a redirect aborts the whole transaction, so it is run again as a whole. */
  exec(): Promise<unknown[]> {
    const { cluster, key } = this.slot;
    const routed = () => {
      const multi = cluster.multi(key);
      for (const args of this.commands) multi.addCommand(key, false, [...args]);
      return multi.exec() as Promise<unknown[]>;
    };
    return roundTrip("transaction", this.slot.onMaster((node) => this.fill(node.multi()).exec(), routed), batchBound(this.commands.length, this.slot.timeoutMs));
  }

  execAsPipeline(): Promise<unknown[]> {
    return roundTrip("pipeline", this.pipeline(), batchBound(this.commands.length, this.slot.timeoutMs));
  }

  /** The commands in one write; those a node redirected (and so did not run) are sent again through the cluster client. */
  private async pipeline(): Promise<unknown[]> {
    const { cluster, key } = this.slot;
    const routed = (args: Command) => cluster.sendCommand(key, false, [...args]);
    try {
      return await this.slot.onMaster(
        (node) => this.fill(node.multi()).execAsPipeline(),
        () => Promise.all(this.commands.map(routed)),
      );
    } catch (error) {
      if (!(error instanceof MultiErrorReply) || !error.errorIndexes.some((i) => isRedirect(error.replies[i]))) throw error;
      const replies: unknown[] = [...error.replies];
      const failed: number[] = [];
      await Promise.all(
        error.errorIndexes.map(async (i) => {
          if (!isRedirect(replies[i])) return void failed.push(i);
          replies[i] = await routed(this.commands[i]!).catch((again: unknown) => (failed.push(i), again));
        }),
      );
      if (failed.length > 0) throw new MultiErrorReply(replies as never, failed.sort((a, b) => a - b));
      return replies;
    }
  }

  private fill(batch: NodeBatch): NodeBatch {
    for (const args of this.commands) batch.addCommand(args);
    return batch;
  }
}
