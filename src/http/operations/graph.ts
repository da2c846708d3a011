import { graphAround, graphOfNamespace } from "../../domain/graph";
import type { AppDeps } from "../deps";
import { memoryView } from "../present";

export interface GraphArgs {
  memory_id?: string;
  namespace?: string;
  depth?: number;
  max_nodes?: number;
}

/**
 * The relation graph answer for GET /v1/graph and the MCP `graph` tool: around `memory_id`, else of
 * `namespace`, else of every namespace (the wallet's most recent memories).
 */
export async function graphAnswer(deps: AppDeps, userId: string, args: GraphArgs) {
  const depth = args.depth ?? 2;
  const maxNodes = args.max_nodes ?? 100;
  const graph = args.memory_id
    ? await graphAround(deps.store, deps.clock, userId, args.memory_id, depth, maxNodes)
    : await graphOfNamespace(deps.store, deps.clock, userId, args.namespace || undefined, depth, maxNodes);
  const listed = memoryView(deps.embedder.modelId);
  return { nodes: graph.nodes.map(({ memory, depth }) => ({ ...listed(memory), depth })), edges: graph.edges, truncated: graph.truncated };
}
