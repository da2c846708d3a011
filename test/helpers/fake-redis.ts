import { createHash } from "node:crypto";
import type { Socket, TCPSocketListener } from "bun";

/**
 * A Redis stand-in on loopback that speaks RESP2, for fault injection without a server: it answers
 * what the Redis engine sends at start-up and on a request with plausible empty replies (no modules
 * listed, no index until FT.CREATE, no documents, hashes and counters kept in memory, scripts
 * answered 1 without running), so `RedisStore.connect` and the HTTP app run over it; then `fault`
 * decides per command what a failing server or cluster answers instead: an error reply, nothing at
 * all (`SILENT`), or a closed connection (`HANG_UP`). Not a Redis: no Lua, no search, no expiry.
 */
export class FakeRedis {
  /** Per command: the reply to give instead of the normal one, or undefined for the normal one. */
  fault: ((args: string[]) => Reply | undefined | Promise<Reply | undefined>) | null = null;
  /** Every command received, in order (MULTI's queued ones included). */
  readonly received: string[][] = [];
  private readonly hashes = new Map<string, Map<string, string>>();
  private readonly strings = new Map<string, string>();
  private indexDimension: number | null = null;
  private readonly sockets = new Set<Socket<Connection>>();

  private constructor(private listener: TCPSocketListener<Connection> | null) {}

  /** Listens on a free loopback port, or on `port` (a server back where one was stopped). */
  static start(port = 0): FakeRedis {
    const fake: FakeRedis = new FakeRedis(null);
    fake.listener = Bun.listen<Connection>({
      hostname: "127.0.0.1",
      port,
      socket: {
        open: (socket) => {
          socket.data = { buffer: Buffer.alloc(0), queued: null, chain: Promise.resolve() };
          fake.sockets.add(socket);
        },
        data: (socket, chunk) => fake.onData(socket, chunk),
        close: (socket) => void fake.sockets.delete(socket),
        error: (socket) => void fake.sockets.delete(socket),
      },
    });
    return fake;
  }

  get port(): number {
    return this.listener!.port;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Closes every open connection (the clients see them closed by the server); still listening. */
  hangUpAll(): void {
    for (const socket of this.sockets) socket.end();
    this.sockets.clear();
  }

  /** Stops listening and closes every connection: connecting is refused from now on. */
  stop(): void {
    this.hangUpAll();
    this.listener?.stop(true);
    this.listener = null;
  }

  private onData(socket: Socket<Connection>, chunk: Uint8Array): void {
    const state = socket.data;
    state.buffer = Buffer.concat([state.buffer, chunk]);
    for (;;) {
      const parsed = parseCommand(state.buffer);
      if (!parsed) return;
      state.buffer = state.buffer.subarray(parsed.length);
      const args = parsed.args;
      this.received.push(args);
      // replies leave in the order the commands came, even when one waits (a slow WAIT)
      state.chain = state.chain.then(async () => {
        const reply = await this.reply(state, args);
        if (reply === SILENT) return;
        if (reply === HANG_UP) return void socket.end();
        socket.write(encode(reply));
      });
    }
  }

  private async reply(state: Connection, args: string[]): Promise<Reply> {
    const name = args[0]!.toUpperCase();
    if (state.queued && name !== "EXEC" && name !== "DISCARD") {
      const injected = await this.fault?.(args);
      if (injected !== undefined) return injected;
      state.queued.push(args);
      return new Simple("QUEUED");
    }
    const injected = await this.fault?.(args);
    if (injected !== undefined) return injected;
    switch (name) {
      case "MULTI":
        state.queued = [];
        return new Simple("OK");
      case "EXEC": {
        const queued = state.queued ?? [];
        state.queued = null;
        return queued.map((command) => this.normal(command));
      }
      case "DISCARD":
        state.queued = null;
        return new Simple("OK");
      default:
        return this.normal(args);
    }
  }

  /** What the engine expects of an empty, healthy server. */
  private normal(args: string[]): Reply {
    const [name, key = "", ...rest] = [args[0]!.toUpperCase(), ...args.slice(1)];
    const hash = () => {
      if (!this.hashes.has(key)) this.hashes.set(key, new Map());
      return this.hashes.get(key)!;
    };
    switch (name) {
      case "PING":
        return new Simple("PONG");
      case "INFO":
        return "# Cluster\r\ncluster_enabled:0\r\n";
      case "FT._LIST":
      case "MODULE":
      case "LRANGE":
        return [];
      case "JSON.TYPE":
      case "JSON.GET":
        return null;
      case "JSON.MGET":
        return args.slice(1, -1).map(() => null);
      case "HGET":
        return this.hashes.get(key)?.get(rest[0]!) ?? null;
      case "HMGET":
        return rest.map((field) => this.hashes.get(key)?.get(field) ?? null);
      case "HSET": {
        const fields = hash();
        let added = 0;
        for (let i = 0; i + 1 < rest.length; i += 2) {
          if (!fields.has(rest[i]!)) added++;
          fields.set(rest[i]!, rest[i + 1]!);
        }
        return added;
      }
      case "HSETNX": {
        const fields = hash();
        if (fields.has(rest[0]!)) return 0;
        fields.set(rest[0]!, rest[1]!);
        return 1;
      }
      case "HDEL":
        return rest.filter((field) => this.hashes.get(key)?.delete(field)).length;
      case "INCRBY":
      case "INCR": {
        const value = Number(this.strings.get(key) ?? 0) + Number(rest[0] ?? 1);
        this.strings.set(key, String(value));
        return value;
      }
      case "GET":
        return this.strings.get(key) ?? null;
      case "SCAN":
      case "HSCAN":
        return ["0", []];
      case "FT.INFO":
        if (this.indexDimension === null) return new RedisError("Unknown index name");
        return ["attributes", [["identifier", "$.embedding", "attribute", "embedding", "type", "VECTOR", "dim", String(this.indexDimension)]], "indexing", "0", "num_docs", "0"];
      case "FT.CREATE":
        this.indexDimension = Number(args[args.findIndex((arg) => arg.toUpperCase() === "DIM") + 1]);
        return new Simple("OK");
      case "FT.DROPINDEX":
        this.indexDimension = null;
        return new Simple("OK");
      case "FT.SEARCH":
      case "FT.AGGREGATE":
        return [0];
      case "SCRIPT":
        return createHash("sha1").update(rest[0] ?? "").digest("hex");
      case "EVALSHA":
      case "EVAL":
        return 1;
      case "WAIT":
        return 0;
      default:
        return new Simple("OK");
    }
  }
}

interface Connection {
  buffer: Buffer;
  /** commands queued since MULTI, null outside one */
  queued: string[][] | null;
  chain: Promise<void>;
}

/** A simple-string reply (`+OK`); a JS string is sent as a bulk string. */
export class Simple {
  constructor(readonly text: string) {}
}
/** An error reply (`-CLUSTERDOWN …`). */
export class RedisError {
  constructor(readonly message: string) {}
}
/** No reply at all: the command waits forever, as on a frozen or unreachable server. */
export const SILENT = Symbol("silent");
/** The server closes the connection instead of replying. */
export const HANG_UP = Symbol("hang up");
export type Reply = string | number | null | Simple | RedisError | Reply[] | typeof SILENT | typeof HANG_UP;

function encode(reply: Reply): string {
  if (reply === null) return "$-1\r\n";
  if (typeof reply === "number") return `:${reply}\r\n`;
  if (typeof reply === "string") return `$${Buffer.byteLength(reply)}\r\n${reply}\r\n`;
  if (reply instanceof Simple) return `+${reply.text}\r\n`;
  if (reply instanceof RedisError) return `-${reply.message}\r\n`;
  if (Array.isArray(reply)) return `*${reply.length}\r\n${reply.map(encode).join("")}`;
  throw new Error("not a reply to encode");
}

/** One command (an array of bulk strings) from the front of `buffer`, with the bytes it took; null when incomplete. */
function parseCommand(buffer: Buffer): { args: string[]; length: number } | null {
  if (buffer.length === 0 || buffer[0] !== 0x2a) return null; // '*'
  let at = buffer.indexOf("\r\n");
  if (at < 0) return null;
  const count = Number(buffer.subarray(1, at).toString());
  let offset = at + 2;
  const args: string[] = [];
  for (let i = 0; i < count; i++) {
    at = buffer.indexOf("\r\n", offset);
    if (at < 0) return null;
    const size = Number(buffer.subarray(offset + 1, at).toString());
    const start = at + 2;
    if (buffer.length < start + size + 2) return null;
    args.push(buffer.subarray(start, start + size).toString());
    offset = start + size + 2;
  }
  return { args, length: offset };
}
