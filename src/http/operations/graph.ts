import { graphAround, graphOfNamespace } from "../../domain/graph";
import { invalid } from "../../domain/errors";
import type { AppDeps } from "../deps";
import { memoryView } from "../present";

export interface GraphArgs {
  memory_id?: string;
  namespace?: string;
  depth?: number;
  max_nodes?: number;
}

/**
 * The relation graph answer for GET /v1/graph and the MCP `graph` tool: around `memory_id`, or of
 * `namespace`. `where` names the input in the 422 ("query" for REST, "arguments" for MCP).
 */
export async function graphAnswer(deps: AppDeps, userId: string, args: GraphArgs, where: string) {
  const depth = args.depth ?? 2;
  const maxNodes = args.max_nodes ?? 100;
  if (!args.memory_id && !args.namespace) throw invalid(`${where}: give memory_id or namespace`, { field: where, rule: "required", one_of: ["memory_id", "namespace"] });
  const graph = args.memory_id
    ? await graphAround(deps.store, deps.clock, userId, args.memory_id, depth, maxNodes)
    : await graphOfNamespace(deps.store, deps.clock, userId, args.namespace!, depth, maxNodes);
  const listed = memoryView(deps.embedder.modelId);
  return { nodes: graph.nodes.map(({ memory, depth }) => ({ ...listed(memory), depth })), edges: graph.edges, truncated: graph.truncated };
}
