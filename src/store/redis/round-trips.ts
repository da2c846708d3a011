import {
  ClientClosedError, ClientOfflineError, ConnectionTimeoutError, DisconnectsClientError, ErrorReply, MaxCommandRedirectionsError,
  MultiErrorReply, ReconnectStrategyError, RootNodesUnavailableError, SocketClosedUnexpectedlyError, SocketTimeoutError, TimeoutError,
} from "redis";
import { redisErrors, redisRoundTrips } from "../../metrics/registry";
import { StoreUnavailable } from "../../domain/store-port";
import type { Batch, Commands } from "./nodes";

/**
 * TimeoutError: a command unanswered after node-redis' command timeout (5 s), e.g. queued for a
 * master that was killed and not yet replaced (measured: scripts/bench/failover.ts).
 */
const TRANSPORT_ERRORS = [
  ClientClosedError, ClientOfflineError, ConnectionTimeoutError, DisconnectsClientError, MaxCommandRedirectionsError,
  ReconnectStrategyError, RootNodesUnavailableError, SocketClosedUnexpectedlyError, SocketTimeoutError, TimeoutError,
];
/** Socket errors a connection rejects its commands with (the driver passes them on as they are). */
const NETWORK_CODES = new Set(["ECONNRESET", "ECONNREFUSED", "ECONNABORTED", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTCONN"]);
const isNetworkError = (error: unknown) => error instanceof Error && NETWORK_CODES.has(String((error as { code?: unknown }).code));
/** Replies of a server or cluster that is not serving right now (failover, resharding, loading its data). */
const UNAVAILABLE_REPLY = /^(CLUSTERDOWN|TRYAGAIN|LOADING|MASTERDOWN|BUSY)\b/;

const isUnavailableReply = (reply: unknown) => reply instanceof ErrorReply && UNAVAILABLE_REPLY.test(reply.message);

/**
 * The error that makes `error` a store outage: a transport error, a not-serving reply, or such a
 * reply among a pipeline's or transaction's (MultiErrorReply: its own message only counts them).
 */
function outage(error: unknown): Error | undefined {
  if (TRANSPORT_ERRORS.some((kind) => error instanceof kind) || isNetworkError(error) || isUnavailableReply(error)) return error as Error;
  if (error instanceof MultiErrorReply) return error.errorIndexes.map((i) => error.replies[i]).find(isUnavailableReply) as Error | undefined;
  return undefined;
}

/** Redis out of reach or not serving, as the domain's StoreUnavailable (a 503); any other error as it is. */
export function asStoreError(error: unknown): unknown {
  const cause = outage(error);
  // the message stays the driver's: start-up recognises LOADING by it (modules.ts isLoading)
  return cause ? new StoreUnavailable(cause.message || cause.constructor.name, { cause: error }) : error;
}

export type RoundTrip = "command" | "pipeline" | "transaction";

/** Counts a round trip of `kind`, and its failure. */
export function roundTrip<T>(kind: RoundTrip, reply: Promise<T>): Promise<T> {
  redisRoundTrips.inc({ kind });
  return reply.catch((error: unknown) => {
    redisErrors.inc({ kind: "command" });
    throw asStoreError(error);
  });
}

/**
 * The connection with every round trip counted for the metrics: a command (sendCommand, which every
 * call of the engine goes through), a pipeline (execAsPipeline) or a transaction (exec) is one.
 */
export function countedClient<C extends Commands>(client: C): C {
  return new Proxy(client, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property === "sendCommand") return (...args: unknown[]) => roundTrip("command", value.apply(target, args));
      if (property === "multi") return (...args: unknown[]) => countedMulti(value.apply(target, args));
      return value.bind(target);
    },
  });
}

/** A MULTI builder whose exec and execAsPipeline are counted; chained calls keep answering the counted builder. */
function countedMulti<M extends Batch>(multi: M): M {
  const proxy: M = new Proxy(multi, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property === "exec") return (...args: unknown[]) => roundTrip("transaction", value.apply(target, args));
      if (property === "execAsPipeline") return (...args: unknown[]) => roundTrip("pipeline", value.apply(target, args));
      return (...args: unknown[]) => {
        const result = value.apply(target, args);
        return result === target ? proxy : result;
      };
    },
  });
  return proxy;
}
