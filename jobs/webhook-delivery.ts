import type { JobDefinition } from "./registry";

// The worker is woken by every commit and by its own retry timer; this pass is the safety net that also
// picks up deliveries left by a process that died, and what `npm run jobs -- run webhook-delivery` runs.
export const webhookDelivery: JobDefinition = {
  name: "webhook-delivery",
  every: "1 minute",
  run: async ({ deliveries }) => `attempted ${await deliveries.runUntilIdle()} delivery(ies)`,
};
