// Stream A's edges (the quote's): placeholder in this worktree, stream A's table replaces it at the merge.
import type { EdgeCase } from "./types";

export const EDGES: EdgeCase[] = [];
