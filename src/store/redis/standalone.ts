import { ConnectionPool, OwnConnection, type Duplicable } from "./connection-pool";
import type { Commands, MasterNode, RedisNodes } from "./nodes";
import { countedClient } from "./round-trips";

/** One Redis server: every slot is its own. */
export class StandaloneNodes implements RedisNodes {
  readonly cluster = false;
  private readonly commands: Commands;
  private readonly own: ConnectionPool<OwnConnection>;

  /** `timeoutMs` bounds every round trip (round-trips.ts); `onError` hears the errors of the connections opened for `exclusive`. */
  constructor(
    private readonly client: Duplicable & { close(): Promise<unknown> },
    private readonly name: string,
    timeoutMs: number,
    onError: (error: Error) => void,
  ) {
    this.commands = countedClient(client as unknown as Commands, timeoutMs);
    this.own = new ConnectionPool(() => new OwnConnection(async () => client, onError, timeoutMs), timeoutMs);
  }

  at(_key: string): Commands {
    return this.commands;
  }

  exclusive<T>(_key: string, work: (node: Commands) => Promise<T>): Promise<T> {
    return this.own.run((connection) => work(connection.commands));
  }

  nodeOf(_key: string): string {
    return this.name;
  }

  async masters(): Promise<MasterNode[]> {
    return [{ name: this.name, commands: this.commands }];
  }

  async close(): Promise<void> {
    this.own.close();
    await this.client.close();
  }
}
