import { redisErrors, redisRoundTrips } from "../../metrics/registry";
import type { Batch, Commands } from "./nodes";

export type RoundTrip = "command" | "pipeline" | "transaction";

/** Counts a round trip of `kind`, and its failure. */
export function roundTrip<T>(kind: RoundTrip, reply: Promise<T>): Promise<T> {
  redisRoundTrips.inc({ kind });
  return reply.catch((error: unknown) => {
    redisErrors.inc({ kind: "command" });
    throw error;
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
