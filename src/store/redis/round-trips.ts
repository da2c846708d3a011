import {
  ClientClosedError, ClientOfflineError, ConnectionTimeoutError, DisconnectsClientError, MaxCommandRedirectionsError,
  MultiErrorReply, ReconnectStrategyError, RootNodesUnavailableError, SocketClosedUnexpectedlyError, SocketTimeoutError, TimeoutError,
} from "redis";
import { redisErrors, redisRoundTrips } from "../../metrics/registry";
import { StoreUnavailable } from "../../domain/store-port";
import type { Batch, Commands } from "./nodes";

/** How long a round trip may wait for its reply by default (REDIS_COMMAND_TIMEOUT_MS). */
export const COMMAND_TIMEOUT_MS = 2000;

/**
 * A round trip with no reply within its bound: a master frozen or cut off and not yet replaced, a
 * network that drops packets, a server too busy to answer. A command sent while its connection is
 * down never waits (it is refused at once: client.ts); this bounds those written and unanswered.
 */
export class NoReplyInTime extends Error {
  override readonly name = "NoReplyInTime";
  constructor(readonly ms: number) {
    super(`no reply from Redis within ${ms} ms`);
  }
}

/**
 * Errors of the driver itself: the connection is closed, offline (reconnecting: a command sent then
 * is refused at once, client.ts), or timed out, the cluster client ran out of redirections (a slot
 * bouncing between nodes during a failover or a resharding) or could reach none of its seeds.
 * TimeoutError: node-redis' own command and pool timeouts.
 */
const TRANSPORT_ERRORS = [
  ClientClosedError, ClientOfflineError, ConnectionTimeoutError, DisconnectsClientError, MaxCommandRedirectionsError,
  ReconnectStrategyError, RootNodesUnavailableError, SocketClosedUnexpectedlyError, SocketTimeoutError, TimeoutError, NoReplyInTime,
];
/** Socket errors a connection rejects its commands with (the driver passes them on as they are). */
const NETWORK_CODES = new Set([
  "ECONNRESET", "ECONNREFUSED", "ECONNABORTED", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "EHOSTDOWN", "ENETUNREACH", "ENETDOWN", "ENOTCONN",
  "EAI_AGAIN", "ENOTFOUND", // a node announced by a host name that does not resolve while its container restarts
]);
const isNetworkError = (error: unknown) => error instanceof Error && NETWORK_CODES.has(String((error as { code?: unknown }).code));
/**
 * Error codes of a server or cluster node that is not serving right now: the cluster lost a slot's
 * master or is rehashing one (CLUSTERDOWN, TRYAGAIN), the node is loading its data, lost its master
 * or is a replica now (LOADING, MASTERDOWN, READONLY, UNBLOCKED: a blocked WAIT released by a role
 * change), too few replicas for a write (NOREPLICAS), a script running too long (BUSY), RediSearch's
 * coordinator without a cluster map yet (ERRCLUSTER). RediSearch 8 may put its own code in front
 * of a shard's reply ("SEARCH_… LOADING …"), and has codes of its own for a query that timed out,
 * shards that did not answer, slots without a master and a fan-out that failed.
 */
const UNAVAILABLE_CODE =
  /^(?:(?:SEARCH_[A-Z_]+ )?(?:CLUSTERDOWN|TRYAGAIN|LOADING|MASTERDOWN|READONLY|UNBLOCKED|NOREPLICAS|BUSY|ERRCLUSTER)|SEARCH_(?:TIMEOUT|CLUSTER_NO_RESPONSES|SLOTS_UNAVAIL|DIST_FAILED))\b/;
/**
 * What RediSearch's coordinator answers, in its versions without codes, when a shard did not answer
 * in time or cannot be reached (a master failing over, a slot without a master, shards overloaded);
 * what a master demoted to replica answers to WAIT; node-redis' ASK to a node not in its map yet
 * (resharding).
 */
const UNAVAILABLE_TEXT = [
  "Could not send query to cluster",
  "Timeout calling command",
  "Failed to communicate with shards",
  "Could not distribute command",
  "Could not distribute the operation",
  "Query requires unavailable slots",
  "Timeout limit was reached",
  "WAIT cannot be used with replica instances",
  "Cannot find node ",
];

const isUnavailableReply = (reply: unknown) =>
  reply instanceof Error && (UNAVAILABLE_CODE.test(reply.message) || UNAVAILABLE_TEXT.some((text) => reply.message.includes(text)));

/**
 * The error that makes `error` a store outage: a transport error, a not-serving reply, or such a
 * reply among a pipeline's or transaction's (MultiErrorReply: its own message only counts them).
 * Anything else (a syntax error, WRONGTYPE, a script's error) is a bug or bad data and stays as it is.
 */
function outage(error: unknown): Error | undefined {
  if (error instanceof MultiErrorReply) return error.errorIndexes.map((i) => error.replies[i]).find(isUnavailableReply) as Error | undefined;
  if (TRANSPORT_ERRORS.some((kind) => error instanceof kind) || isNetworkError(error) || isUnavailableReply(error)) return error as Error;
  return undefined;
}

/** Redis out of reach or not serving, as the domain's StoreUnavailable (a 503); any other error as it is. */
export function asStoreError(error: unknown): unknown {
  const cause = outage(error);
  // the message stays the driver's: start-up recognises LOADING by it (modules.ts isLoading)
  return cause ? new StoreUnavailable(cause.message || cause.constructor.name, { cause: error }) : error;
}

/**
 * The bound of one command: `timeoutMs`, plus what the command itself may wait on the server
 * (WAIT's timeout argument), so a WAIT that times out is answered as not replicated, not as no reply.
 */
export function commandBound(args: readonly unknown[], timeoutMs: number): number {
  return String(args[0]).toUpperCase() === "WAIT" ? timeoutMs + Number(args[2] ?? 0) : timeoutMs;
}

/**
 * What each command of a batch adds to its bound. A batch's last reply comes after the server ran
 * every command: a SCAN page's JSON.SETs (up to 1,000 documents re-indexed one by one, ~1 ms each)
 * or a 500-memory MULTI of the store copy would otherwise fail on a busy server with no fault at all.
 */
const PER_BATCHED_COMMAND_MS = 5;

/** The bound of a batch of `commands`. */
export const batchBound = (commands: number, timeoutMs: number) => timeoutMs + commands * PER_BATCHED_COMMAND_MS;

/** `reply`, or NoReplyInTime after `ms` (the command stays queued on its connection; a late reply is dropped). */
function bounded<T>(reply: Promise<T>, ms: number): Promise<T> {
  if (!(ms > 0 && Number.isFinite(ms))) return reply;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NoReplyInTime(ms)), ms);
  });
  return Promise.race([reply, late]).finally(() => clearTimeout(timer));
}

export type RoundTrip = "command" | "pipeline" | "transaction";

/** Counts a round trip of `kind`, and its failure; no reply within `timeoutMs` is a failure (NoReplyInTime). */
export function roundTrip<T>(kind: RoundTrip, reply: Promise<T>, timeoutMs = COMMAND_TIMEOUT_MS): Promise<T> {
  redisRoundTrips.inc({ kind });
  return bounded(reply, timeoutMs).catch((error: unknown) => {
    redisErrors.inc({ kind: "command" });
    throw asStoreError(error);
  });
}

/**
 * The connection with every round trip counted for the metrics and bounded by `timeoutMs`: a
 * command (sendCommand, which every call of the engine goes through), a pipeline (execAsPipeline)
 * or a transaction (exec) is one.
 */
export function countedClient<C extends Commands>(client: C, timeoutMs = COMMAND_TIMEOUT_MS): C {
  return new Proxy(client, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property === "sendCommand") return (...args: unknown[]) => roundTrip("command", value.apply(target, args), commandBound(args[0] as unknown[], timeoutMs));
      if (property === "multi") return (...args: unknown[]) => countedMulti(value.apply(target, args), timeoutMs, () => isOffline(target));
      return value.bind(target);
    },
  });
}

/**
 * Whether `client` (a node-redis client; anything without `isReady` counts as up) is reconnecting.
 * node-redis refuses a command sent then (disableOfflineQueue) but queues a MULTI or a pipeline
 * until the connection is back: one the request was told failed would then run later.
 */
export const isOffline = (client: unknown) => (client as { isReady?: unknown }).isReady === false;

/**
 * A MULTI builder whose exec and execAsPipeline are counted and bounded, and refused while its
 * connection is `offline`; chained calls keep answering the counted builder.
 */
function countedMulti<M extends Batch>(multi: M, timeoutMs: number, offline: () => boolean): M {
  let commands = 0;
  const send = (kind: "transaction" | "pipeline", run: () => Promise<unknown>) =>
    roundTrip(kind, offline() ? Promise.reject(new ClientOfflineError()) : run(), batchBound(commands, timeoutMs));
  const proxy: M = new Proxy(multi, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property === "exec") return (...args: unknown[]) => send("transaction", () => value.apply(target, args));
      if (property === "execAsPipeline") return (...args: unknown[]) => send("pipeline", () => value.apply(target, args));
      return (...args: unknown[]) => {
        if (property === "addCommand") commands++;
        const result = value.apply(target, args);
        return result === target ? proxy : result;
      };
    },
  });
  return proxy;
}
