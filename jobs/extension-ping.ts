import { PING_JOB, probeInstallations } from "../src/extensions/install-health.service";
import type { JobDefinition } from "./registry";

// A signed extension.ping to every active install's endpoint every 6 hours (the deploy probe is scheduled by main.ts).
export const extensionPing: JobDefinition = {
  name: PING_JOB,
  every: "6 hours",
  run: async ({ deps }) => `probed ${await probeInstallations(deps, "schedule")} install endpoint(s)`,
};
