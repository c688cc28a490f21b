import { INSTALL_CALLBACK_JOB, runInstallCallbacks } from "../src/extensions/install-callback.service";
import type { JobDefinition } from "./registry";

// Install notices to extensions' installCallbackUrl (3 attempts, 4xx permanent); an install nudges it at once.
export const extensionInstallCallbacks: JobDefinition = {
  name: INSTALL_CALLBACK_JOB,
  every: "1 minute",
  run: async ({ deps }) => `sent ${await runInstallCallbacks(deps)} install callback(s)`,
};
