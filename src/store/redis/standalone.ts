import type { Commands, MasterNode, RedisNodes } from "./nodes";
import { countedClient } from "./round-trips";

/** One Redis server: every slot is its own. */
export class StandaloneNodes implements RedisNodes {
  readonly cluster = false;
  private readonly commands: Commands;

  constructor(
    private readonly client: Commands & { close(): Promise<void> },
    private readonly name: string,
  ) {
    this.commands = countedClient(client);
  }

  at(_key: string): Commands {
    return this.commands;
  }

  nodeOf(_key: string): string {
    return this.name;
  }

  async masters(): Promise<MasterNode[]> {
    return [{ name: this.name, commands: this.commands }];
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
