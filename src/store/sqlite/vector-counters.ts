/** Process-wide counters of the vector index and its wallet caches, for benchmarks and diagnostics. */
export const vectorIndexCounters = {
  /** searches answered from the cache */
  searches: 0,
  /** searches with a minimum similarity answered by rescoring only the rows that may reach it */
  withinMinimum: 0,
  /** of those, searches that scored only the rows of the filter's namespace */
  namespaceScans: 0,
  /** searches that read the rows of the nearest coarse cells only (vector-cells.ts) */
  cellSearches: 0,
  /** searches that needed the second (bound) pass */
  secondPasses: 0,
  /** searches the scan thread ran (kernel scan, first pass, exact rescoring) */
  offloadedScans: 0,
  /** of those, answers dropped because the wallet's rows changed meanwhile (the search ran again on the main thread) */
  offloadDiscards: 0,
  /** searches answered by the SQL scan (inside a transaction, include_deleted, unparsable dates) */
  sqlScans: 0,
  /** users loaded from `memories` (counted when a background load completes) */
  loads: 0,
  /** background loads started */
  backgroundLoads: 0,
  /** wallets dropped from the cache to keep it within its budget (least recently used first) */
  evictions: 0,
  /** background loads discarded (the cache was reset meanwhile, or the wallet is too large for the budget) */
  backgroundDiscards: 0,
  /** other connections' row changes read from memory_changes */
  changesApplied: 0,
  /** caches dropped because memory_changes could not tell what changed (gap or long backlog) */
  changeLogResets: 0,
  /** rows whose access count alone was read again (another connection's access bumps) */
  accessCountsRead: 0,
};
