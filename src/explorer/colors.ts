import type { MEMORY_TYPES, RELATION_TYPES } from "./types";

/** One colour per memory type (nodes, chart bars) and per relation type (edges, legend). */
export const TYPE_COLORS: Record<(typeof MEMORY_TYPES)[number], string> = {
  correction: "#d1495b",
  preference: "#8e6bbf",
  decision: "#edae49",
  project: "#00798c",
  observation: "#66a182",
  general: "#6c7a89",
};
export const RELATION_COLORS: Record<(typeof RELATION_TYPES)[number], string> = {
  related_to: "#8a94a6",
  derived_from: "#2e86de",
  contradicts: "#e55039",
  supersedes: "#f6a623",
  supports: "#20bf6b",
};
export const colorOfType = (type: string) => TYPE_COLORS[type as keyof typeof TYPE_COLORS] ?? "#6c7a89";
export const colorOfRelation = (type: string) => RELATION_COLORS[type as keyof typeof RELATION_COLORS] ?? "#8a94a6";
