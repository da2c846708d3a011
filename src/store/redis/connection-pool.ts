import { StoreUnavailable } from "../../domain/store-port";
import type { Commands } from "./nodes";
import { NoReplyInTime, asStoreError, countedClient } from "./round-trips";

/** Connections of their own per master, at most: as many writes may wait for their replicas at once; more wait for one to come back. */
export const EXCLUSIVE_PER_MASTER = 16;

/** What the pool needs of a connection. */
export interface PoolConnection {
  connect(): Promise<unknown>;
  /** Ends the connection at once (connecting or not), whatever it still waits for. */
  destroy(): void;
}

/** What a connection of its own is copied from: a node-redis client. */
export interface Duplicable {
  duplicate(): CopiedClient;
}
interface CopiedClient {
  on(event: "error", listener: (error: Error) => void): unknown;
  connect(): Promise<unknown>;
  destroy(): void;
}

/**
 * A connection of its own to the server of a shared connection (node-redis' `duplicate`: same
 * address, credentials, TLS and connection settings), its round trips counted and bounded as the
 * shared one's.
 */
export class OwnConnection implements PoolConnection {
  private client: CopiedClient | undefined;
  private counted: Commands | undefined;
  private destroyed = false;

  constructor(
    private readonly shared: () => Promise<Duplicable>,
    private readonly onError: (error: Error) => void,
    private readonly timeoutMs: number,
  ) {}

  async connect(): Promise<void> {
    const source = await this.shared();
    if (this.destroyed) return;
    const client = (this.client = source.duplicate());
    client.on("error", this.onError); // without a listener an error event would end the process
    this.counted = countedClient(client as unknown as Commands, this.timeoutMs);
    await client.connect();
  }

  /** The connection's commands, once connected. */
  get commands(): Commands {
    if (!this.counted) throw new Error("OwnConnection used before connect()");
    return this.counted;
  }

  destroy(): void {
    this.destroyed = true;
    this.client?.destroy();
  }
}

/**
 * Connections to one master, each lent to one task at a time (REDIS_WAIT_REPLICAS: a write and its
 * WAIT). WAIT blocks the connection it is sent on until the replicas answer or its timeout ends, so
 * on the connection every request shares it would hold up the commands of every other wallet on
 * that master, and pending WAITs would queue behind one another. Connections are opened on demand,
 * up to `max`; a task beyond them waits for one to come back, for at most `timeoutMs`
 * (StoreUnavailable then). A connection whose task met an outage (it may still wait for a reply)
 * is destroyed rather than lent again.
 */
export class ConnectionPool<C extends PoolConnection> {
  private readonly idle: C[] = [];
  /** tasks waiting for a connection; `give` answers false for one that gave up meanwhile */
  private readonly waiting: { give(connection: C): boolean }[] = [];
  /** connections open or opening, lent or idle */
  private count = 0;
  private closed = false;

  constructor(
    private readonly open: () => C,
    private readonly timeoutMs: number,
    private readonly max = EXCLUSIVE_PER_MASTER,
  ) {}

  /** Runs `task` on a connection no other task uses meanwhile. */
  async run<T>(task: (connection: C) => Promise<T>): Promise<T> {
    const connection = await this.acquire();
    try {
      const result = await task(connection);
      this.release(connection);
      return result;
    } catch (error) {
      if (error instanceof StoreUnavailable) this.discard(connection);
      else this.release(connection);
      throw error;
    }
  }

  /** Connections open or opening. */
  get size(): number {
    return this.count;
  }

  /** Destroys the idle connections; those lent are destroyed when their task ends. */
  close(): void {
    this.closed = true;
    for (const connection of this.idle.splice(0)) connection.destroy();
  }

  private acquire(): Promise<C> {
    if (this.closed) return Promise.reject(new StoreUnavailable("the store is closing"));
    const ready = this.idle.pop();
    if (ready) return Promise.resolve(ready);
    if (this.count < this.max) return this.openOne();
    return new Promise<C>((resolve, reject) => {
      let settled = false;
      const waiter = {
        give: (connection: C) => {
          if (settled) return false;
          settled = true;
          clearTimeout(timer);
          resolve(connection);
          return true;
        },
      };
      const timer = setTimeout(() => {
        settled = true;
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(new StoreUnavailable(`no connection to the master free within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.waiting.push(waiter);
    });
  }

  /** A new connection, connected within `timeoutMs` (a master being replaced may not answer at all). */
  private async openOne(): Promise<C> {
    this.count++;
    const connection = this.open();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new NoReplyInTime(this.timeoutMs)), this.timeoutMs);
    });
    try {
      await Promise.race([connection.connect(), late]);
      return connection;
    } catch (error) {
      connection.destroy(); // stops its reconnection attempts too
      this.count--;
      throw asStoreError(error);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Back to the pool: to the first task still waiting, else idle. */
  private release(connection: C): void {
    if (this.closed) return connection.destroy();
    while (this.waiting.length > 0) if (this.waiting.shift()!.give(connection)) return;
    this.idle.push(connection);
  }

  private discard(connection: C): void {
    connection.destroy();
    this.count--;
    // a task waiting for a connection gets a new one in place of the one destroyed
    if (this.waiting.length > 0 && !this.closed) this.openOne().then((fresh) => this.release(fresh), () => {});
  }
}
