import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from "prom-client";
import type { Subprocess } from "bun";
import { registry } from "./registry";

/**
 * With WORKERS > 1 the kernel hands each connection to one of the worker processes, so a scrape
 * reaches one of them. That worker asks the supervisor, which collects every worker's metrics over
 * the IPC channel and answers their sum (prom-client's AggregatorRegistry: counters and histograms
 * add up; so do the gauges, each process holding its own cache and queue). A scrape therefore sees
 * the whole service whichever worker answers it, and counters never step back between scrapes.
 */

type Metrics = MetricObjectWithValues<MetricValue<string>>[];
/** worker → supervisor */
type FromWorker = { type: "metrics:request"; id: number } | { type: "metrics:reply"; id: number; metrics: Metrics };
/** supervisor → worker */
type ToWorker = { type: "metrics:collect"; id: number } | { type: "metrics:result"; id: number; text: string };

/** How long a scrape waits for the other workers; a worker that does not answer in time (restarting) is left out. */
const COLLECT_MS = 2000;

/** Set by answerSupervisor in a worker process, which has the IPC channel to its supervisor. */
let supervised = false;

/** The service's metrics in the Prometheus text format: this process's, or every worker's summed. */
export async function metricsText(): Promise<string> {
  if (!supervised) return registry.metrics();
  const id = nextId++;
  const result = new Promise<string>((resolve, reject) => {
    pending.set(id, resolve);
    setTimeout(() => pending.delete(id) && reject(new Error("the supervisor did not answer the metrics request")), COLLECT_MS * 2);
  });
  process.send!({ type: "metrics:request", id } satisfies FromWorker);
  return result;
}

let nextId = 1;
const pending = new Map<number, (text: string) => void>();

/** Worker side (a process started by the supervisor): answers its collections and receives the sums asked for. */
export function answerSupervisor(): void {
  if (typeof process.send !== "function") return;
  supervised = true;
  process.on("message", async (message: ToWorker) => {
    if (message?.type === "metrics:collect") {
      process.send!({ type: "metrics:reply", id: message.id, metrics: (await registry.getMetricsAsJSON()) as Metrics } satisfies FromWorker);
    } else if (message?.type === "metrics:result") {
      pending.get(message.id)?.(message.text);
      pending.delete(message.id);
    }
  });
}

/** Supervisor side: the IPC handler of the worker processes (Bun.spawn's `ipc`), given the running workers. */
export function supervisorMetrics(workers: () => Subprocess[]): (message: FromWorker, from: Subprocess) => void {
  let nextCollection = 1;
  const collections = new Map<number, (metrics: Metrics) => void>();
  const collect = async (): Promise<string> => {
    const replies = workers().map(
      (worker) =>
        new Promise<Metrics | null>((resolve) => {
          const id = nextCollection++;
          collections.set(id, resolve);
          setTimeout(() => collections.delete(id) && resolve(null), COLLECT_MS);
          try {
            worker.send({ type: "metrics:collect", id } satisfies ToWorker);
          } catch {
            collections.delete(id);
            resolve(null);
          }
        }),
    );
    const answered = (await Promise.all(replies)).filter((m): m is Metrics => m !== null);
    return AggregatorRegistry.aggregate(answered).metrics();
  };
  return (message, from) => {
    if (message?.type === "metrics:reply") {
      collections.get(message.id)?.(message.metrics);
      collections.delete(message.id);
    } else if (message?.type === "metrics:request") {
      void collect().then((text) => from.send({ type: "metrics:result", id: message.id, text } satisfies ToWorker));
    }
  };
}
