/**
 * Starts the service with scripts/bench/memory-probe.ts preloaded and an IPC channel to it, and
 * asks it what its anonymous memory is made of (see memory-probe.ts). For the memory benches.
 */
import { join } from "node:path";
import type { Subprocess } from "bun";
import type { ProbeAnswer } from "./memory-probe.ts";

export interface ProbedService {
  process: Subprocess;
  /** the probe's answer; `gc`: a full collection first; `arenas`: say where mimalloc's arenas are (ProbeAnswer.mimallocBlocks) */
  probe(gc?: boolean, arenas?: boolean): Promise<ProbeAnswer>;
}

/** `bun --preload memory-probe.ts <script>` with `options` (env, cwd, stdio). */
export function spawnProbed(script: string, options: { env: Record<string, string | undefined>; cwd?: string; stdout?: "inherit" | "ignore"; stderr?: "inherit" | "ignore" }): ProbedService {
  const waiting = new Map<number, (answer: ProbeAnswer) => void>();
  const child = Bun.spawn(["bun", "--preload", join(import.meta.dir, "memory-probe.ts"), script], {
    env: options.env,
    cwd: options.cwd,
    stdout: options.stdout ?? "inherit",
    stderr: options.stderr ?? "inherit",
    ipc: (message: ProbeAnswer) => {
      waiting.get(message.probe)?.(message);
      waiting.delete(message.probe);
    },
  });
  let last = 0;
  const probe = (gc = false, arenas = false) =>
    new Promise<ProbeAnswer>((done) => {
      const id = ++last;
      waiting.set(id, done);
      child.send({ probe: id, gc, arenas });
    });
  return { process: child, probe };
}
