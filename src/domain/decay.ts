import { HALF_LIFE_DAYS, type Memory } from "./memory";

const DAY_MS = 86_400_000;

export function ageDays(memory: Pick<Memory, "created_at">, now: number): number {
  return Math.max(0, (now - Date.parse(memory.created_at)) / DAY_MS);
}

/**
 * Each relation stretches the half-life by 20%, up to 3x at 10 relations: a memory that
 * other memories point to is part of the graph's structure and should fade slower.
 */
export function relationStretch(relationCount: number): number {
  return Math.min(1 + 0.2 * relationCount, 3);
}

/** Exponential decay by the memory type's half-life; pinned (core) memories do not decay. `age`: ageDays, when the caller has it. */
export function typeDecay(memory: Pick<Memory, "created_at" | "memory_type" | "pinned">, relationCount: number, now: number, age?: number): number {
  if (memory.pinned) return 1;
  const halfLife = HALF_LIFE_DAYS[memory.memory_type] * relationStretch(relationCount);
  return Math.pow(0.5, (age ?? ageDays(memory, now)) / halfLife);
}
