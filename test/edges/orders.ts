// Stream B's edges (the order's): placeholder in this worktree, stream B's table replaces it at the merge.
import type { EdgeCase } from "./types";

export const EDGES: EdgeCase[] = [];
