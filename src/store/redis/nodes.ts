import type { RedisArgument } from "redis";

/** One command as sent: its name and arguments. */
export type Command = readonly RedisArgument[];

/**
 * What the engine sends commands through: a standalone server's connection, or the connection to
 * the master serving one slot of a cluster. Replies are RESP2 (see client.ts).
 */
export interface Commands {
  sendCommand(args: Command): Promise<unknown>;
  /** A batch: `exec` runs it as MULTI/EXEC, `execAsPipeline` sends it in one write; both reject if a command failed. */
  multi(): Batch;
}

export interface Batch {
  addCommand(args: Command): Batch;
  exec(): Promise<unknown[]>;
  execAsPipeline(): Promise<unknown[]>;
}

/** A master, for work done on every one: index management, SCAN walks, start-up checks. */
export interface MasterNode {
  /** host:port, for messages and per-node caches */
  name: string;
  commands: Commands;
}

/**
 * The Redis deployment: one server, or a cluster (cluster.ts). The engine addresses every wallet
 * through `at(keys.slot(user))`, so it never needs to know which one it runs on.
 */
export interface RedisNodes {
  readonly cluster: boolean;
  /**
   * Commands for the keys of the slot `key` hashes to. Every key a command or batch names must be
   * in that slot (one wallet's keys, or one global key), and keyless commands (FT.SEARCH, WAIT,
   * SCRIPT LOAD) reach the master that holds it.
   */
  at(key: string): Commands;
  /**
   * Runs `work` on a connection to the master holding `key`'s slot that nothing else uses
   * meanwhile (connection-pool.ts): for a write followed by WAIT, which holds up every command sent
   * after it on its connection. On a cluster, a redirect (the slot moved) runs `work` once more
   * through `at(key)`: its writes must be one step each (a script, a MULTI), which a redirect
   * refuses whole.
   */
  exclusive<T>(key: string, work: (node: Commands) => Promise<T>): Promise<T>;
  /** The name of the master holding `key`'s slot (MasterNode.name). */
  nodeOf(key: string): string;
  /** Every master, as known now. */
  masters(): Promise<MasterNode[]>;
  close(): Promise<void>;
}
