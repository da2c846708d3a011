import { describe, expect, test } from "bun:test";
import { ErrorReply } from "redis";
import calculateSlot from "cluster-key-slot";
import { StoreUnavailable } from "../../src/domain/store-port";
import { ConnectionPool, type PoolConnection } from "../../src/store/redis/connection-pool";
import { ClusterNodes, type Cluster } from "../../src/store/redis/cluster";
import type { Commands } from "../../src/store/redis/nodes";

/**
 * The connections of their own behind REDIS_WAIT_REPLICAS (a write and its WAIT): lent to one task
 * at a time, opened on demand up to a limit, bounded waits, broken ones dropped; on a cluster, one
 * pool per master, a redirect sent the cluster client's way, a replaced master's pool closed.
 */

class FakeConnection implements PoolConnection {
  static opened = 0;
  destroyed = false;
  readonly id = ++FakeConnection.opened;
  constructor(private readonly connecting: Promise<void> = Promise.resolve()) {}
  connect() {
    return this.connecting;
  }
  destroy() {
    this.destroyed = true;
  }
}

/** A task that holds its connection until `finish` is called. */
function heldTask() {
  let finish!: (value?: unknown) => void;
  let fail!: (error: unknown) => void;
  const done = new Promise((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const seen: FakeConnection[] = [];
  return { task: (c: FakeConnection) => (seen.push(c), done), finish, fail, seen };
}

describe("ConnectionPool", () => {
  test("a connection serves one task at a time; a task beyond the limit waits for one to come back", async () => {
    const pool = new ConnectionPool(() => new FakeConnection(), 5000, 2);
    const [a, b, c] = [heldTask(), heldTask(), heldTask()];
    const runs = [pool.run(a.task), pool.run(b.task), pool.run(c.task)];
    await Bun.sleep(0);
    expect(pool.size).toBe(2);
    expect(a.seen[0]).not.toBe(b.seen[0]);
    expect(c.seen).toEqual([]); // waiting
    b.finish("b");
    expect(await runs[1]).toBe("b");
    await Bun.sleep(0);
    expect(c.seen[0]).toBe(b.seen[0]!); // b's connection, handed on
    a.finish("a");
    c.finish("c");
    expect(await Promise.all(runs)).toEqual(["a", "b", "c"]);
    expect(pool.size).toBe(2);
  });

  test("waiting for a connection is bounded: StoreUnavailable, and the pool is not left with a dead waiter", async () => {
    const pool = new ConnectionPool(() => new FakeConnection(), 50, 1);
    const a = heldTask();
    const first = pool.run(a.task);
    const error = await pool.run(async () => "never").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailable);
    a.finish("a");
    await first;
    const b = heldTask();
    const next = pool.run(b.task);
    await Bun.sleep(0);
    expect(b.seen[0]).toBe(a.seen[0]!); // the freed connection went to a live task
    b.finish("b");
    expect(await next).toBe("b");
  });

  test("a connection whose task met an outage is destroyed, not lent again; one that met another error is kept", async () => {
    const pool = new ConnectionPool(() => new FakeConnection(), 5000, 4);
    let used!: FakeConnection;
    await expect(pool.run(async (c) => ((used = c), Promise.reject(new StoreUnavailable("no reply from Redis within 2000 ms"))))).rejects.toThrow("no reply");
    expect(used.destroyed).toBe(true);
    expect(pool.size).toBe(0);
    let kept!: FakeConnection;
    await expect(pool.run(async (c) => ((kept = c), Promise.reject(new Error("WRONGTYPE"))))).rejects.toThrow("WRONGTYPE");
    expect(kept.destroyed).toBe(false);
    expect(await pool.run(async (c) => c)).toBe(kept);
  });

  test("a connection that does not open within the bound: StoreUnavailable, and it is destroyed (no reconnecting left behind)", async () => {
    const never = new FakeConnection(new Promise(() => {}));
    const pool = new ConnectionPool(() => never, 50, 1);
    const error = await pool.run(async () => "never").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailable);
    expect(never.destroyed).toBe(true);
    expect(pool.size).toBe(0);
  });

  test("closing destroys the idle connections and those lent once their task ends", async () => {
    const pool = new ConnectionPool(() => new FakeConnection(), 5000, 2);
    const [a, b] = [heldTask(), heldTask()];
    const lent = pool.run(a.task);
    const done = pool.run(b.task);
    await Bun.sleep(0);
    b.finish();
    await done;
    const idle = b.seen[0]!;
    pool.close();
    expect(idle.destroyed).toBe(true);
    expect(a.seen[0]!.destroyed).toBe(false);
    a.finish();
    await lent;
    expect(a.seen[0]!.destroyed).toBe(true);
    await expect(pool.run(async () => 1)).rejects.toBeInstanceOf(StoreUnavailable);
  });
});

/** The parts of node-redis' cluster client ClusterNodes uses, over fake node clients; `moved` masters answer MOVED. */
function fakeCluster(addresses: string[]) {
  const log: string[] = [];
  const moved = new Set<string>();
  const copies: { destroyed: boolean }[] = [];
  const send = (name: string, address: string) => async (args: string[]) => {
    log.push(`${name} ${args[0]}`);
    if (moved.has(address)) throw new ErrorReply("MOVED 1234 10.0.0.9:7009");
    return 1;
  };
  const nodeClient = (address: string) => ({
    isReady: true,
    sendCommand: send(address, address),
    duplicate() {
      const own = { destroyed: false, sendCommand: send(`${address} (own)`, address), on: () => own, connect: async () => {}, destroy: () => void (own.destroyed = true) };
      copies.push(own);
      return own;
    },
  });
  const masters = addresses.map((address) => ({ address, client: nodeClient(address) }));
  const slots: { master: (typeof masters)[number] }[] = [];
  const cluster = {
    masters,
    slots,
    nodeClient: async (master: (typeof masters)[number]) => master.client,
    sendCommand: async (_key: string, _readonly: boolean, args: string[]) => (log.push(`cluster ${args[0]}`), 1),
  };
  return {
    cluster: cluster as unknown as Cluster,
    log,
    moved,
    copies,
    /** `key`'s slot is held by `address` (added as a master if new) */
    place(key: string, address: string) {
      let master = masters.find((m) => m.address === address);
      if (!master) masters.push((master = { address, client: nodeClient(address) }));
      slots[calculateSlot(key)] = { master };
    },
    /** `address` is a master no more */
    drop(address: string) {
      masters.splice(masters.findIndex((m) => m.address === address), 1);
    },
  };
}

describe("ClusterNodes.exclusive", () => {
  const send = (node: Commands) => node.sendCommand(["EVALSHA", "sha", "0"]);

  test("runs on a connection of its own to the slot's master, reused by the next write there", async () => {
    const fake = fakeCluster(["10.0.0.1:7001", "10.0.0.2:7002"]);
    fake.place("{w1}", "10.0.0.1:7001");
    fake.place("{w2}", "10.0.0.2:7002");
    const nodes = new ClusterNodes(fake.cluster, 2000, () => {});
    await nodes.exclusive("{w1}", send);
    await nodes.exclusive("{w1}", send);
    await nodes.exclusive("{w2}", send);
    expect(fake.log).toEqual(["10.0.0.1:7001 (own) EVALSHA", "10.0.0.1:7001 (own) EVALSHA", "10.0.0.2:7002 (own) EVALSHA"]);
    expect(fake.copies.length).toBe(2);
  });

  test("a redirect (the slot moved, nothing ran) runs the work again the cluster client's way, which follows it", async () => {
    const fake = fakeCluster(["10.0.0.1:7001"]);
    fake.place("{w1}", "10.0.0.1:7001");
    fake.moved.add("10.0.0.1:7001");
    const nodes = new ClusterNodes(fake.cluster, 2000, () => {});
    expect(await nodes.exclusive("{w1}", send)).toBe(1);
    expect(fake.log).toEqual(["10.0.0.1:7001 (own) EVALSHA", "10.0.0.1:7001 EVALSHA", "cluster EVALSHA"]);
    expect(fake.copies[0]!.destroyed).toBe(false); // a redirect is no outage: the connection is kept
  });

  test("a master replaced by its replica: the new master gets a pool, the old one's connections are destroyed", async () => {
    const fake = fakeCluster(["10.0.0.1:7001", "10.0.0.2:7002"]);
    fake.place("{w1}", "10.0.0.1:7001");
    const nodes = new ClusterNodes(fake.cluster, 2000, () => {});
    await nodes.exclusive("{w1}", send);
    // failover: the replica 10.0.0.4 now holds 10.0.0.1's slots
    fake.drop("10.0.0.1:7001");
    fake.place("{w1}", "10.0.0.4:7004");
    await nodes.exclusive("{w1}", send);
    expect(fake.log.at(-1)).toBe("10.0.0.4:7004 (own) EVALSHA");
    expect(fake.copies.map((c) => c.destroyed)).toEqual([true, false]);
  });
});
