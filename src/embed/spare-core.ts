import { cpus } from "node:os";

/** Other processes using at least this many cores leave none to spare. */
export const OTHERS_MAX_CORES = 0.5;
/** The machine's CPU times are read again at most this often… */
export const SAMPLE_MS = 1_000;
/** …and a reading older than this (an idle service) starts a new sample instead of ending one. */
const STALE_MS = 5 * SAMPLE_MS;

/** CPU milliseconds: the machine's busy time (every core) and this process's (every thread). */
export interface CpuTimes {
  machine: number;
  own: number;
}

export function readCpuTimes(): CpuTimes {
  let machine = 0;
  for (const { times } of cpus()) machine += times.user + times.nice + times.sys + times.irq;
  const { user, system } = process.cpuUsage();
  return { machine, own: (user + system) / 1000 };
}

/**
 * Whether the machine has a core to spare for this process: what other processes used over the
 * last sample (the machine's busy time less this process's) is under OTHERS_MAX_CORES. A second
 * embedding worker pays only on a core nothing else wants: on a machine whose cores other
 * processes keep busy, it takes its time from the main thread's share (with autogroup scheduling a
 * process does not get more CPU by running more threads), and a batch store at 10k memories was
 * 15–25% slower with it than without. Where the machine's CPU times cannot be read, a core is
 * taken to be spare.
 */
export function spareCore(read: () => CpuTimes = readCpuTimes, now: () => number = performance.now): () => boolean {
  let last: { at: number; times: CpuTimes } | null = null;
  let spare = false;
  return () => {
    const at = now();
    if (last && at - last.at < SAMPLE_MS) return spare;
    let times: CpuTimes;
    try {
      times = read();
    } catch {
      return (spare = true);
    }
    if (times.machine === 0) return (spare = true); // no CPU times on this platform
    if (last && at - last.at <= STALE_MS) {
      const others = times.machine - last.times.machine - (times.own - last.times.own);
      spare = others / (at - last.at) < OTHERS_MAX_CORES;
    } else spare = false; // not known until a sample ends
    last = { at, times };
    return spare;
  };
}
