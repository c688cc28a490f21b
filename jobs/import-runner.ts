import { runImportPasses } from "../src/imports/import.runner";
import type { JobDefinition } from "./registry";

// Runs the dry runs, commits and undos the import verbs queued. Verbs nudge it to start at once; the schedule
// also picks up a pass whose worker died (its lease lapsed).
export const importRunner: JobDefinition = {
  name: "import-runner",
  every: "10 seconds",
  run: async ({ deps }) => {
    const r = await runImportPasses(deps);
    return `ran ${r.passes} import pass(es)`;
  },
};
