// After-commit fan-out of recorded events: GraphQL subscriptions (in-process, or Redis across processes)
// and a nudge to the webhook delivery worker. Deliveries themselves are rows written with the event, so
// nothing here needs to survive a crash.
import { createRedisEventTarget } from "@graphql-yoga/redis-event-target";
import { createPubSub } from "graphql-yoga";
import Redis from "ioredis";

export interface Envelope {
  id: string;
  type: string;
  version: string;
  workspaceId: string;
  environmentId: string;
  environmentKind?: string;
  createdAt: string;
  data: unknown;
}

type HubPubSub = ReturnType<typeof createPubSub<Record<string, [Envelope]>>>;

/** Subscribers listen per application + environment: the tenant every event belongs to. */
export const tenantTopic = (applicationId: string, environmentId: string) => `events:${applicationId}:${environmentId}`;

/** An import's progress topic: a ping per finished batch; listeners read the import again (tenant-checked). */
export const importTopic = (importId: string) => `import:${importId}`;

interface Committed {
  applicationId: string;
  envelope: Envelope;
}

export class EventHub {
  readonly pubsub: HubPubSub;
  private readonly listeners = new Set<(events: Committed[]) => void>();
  private readonly redis: Redis[] = [];

  constructor(opts: { redisUrl?: string } = {}) {
    if (opts.redisUrl) {
      const publishClient = new Redis(opts.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 3 });
      const subscribeClient = new Redis(opts.redisUrl, { lazyConnect: false });
      for (const c of [publishClient, subscribeClient]) c.on("error", (e) => console.error("[redis]", e.message));
      this.redis.push(publishClient, subscribeClient);
      this.pubsub = createPubSub<Record<string, [Envelope]>>({ eventTarget: createRedisEventTarget({ publishClient, subscribeClient }) });
    } else {
      this.pubsub = createPubSub<Record<string, [Envelope]>>();
    }
  }

  /** Called once a transaction that recorded events has committed. */
  committed(events: Committed[]) {
    for (const e of events) this.pubsub.publish(tenantTopic(e.applicationId, e.envelope.environmentId), e.envelope);
    for (const l of this.listeners) l(events);
  }

  /** An import's counters or status changed (a batch or a pass ended): wakes its importProgress subscribers. */
  importChanged(importId: string) {
    this.pubsub.publish(importTopic(importId), { id: importId, type: "import.progress", version: "1", workspaceId: "", environmentId: "", createdAt: new Date().toISOString(), data: null });
  }

  onCommitted(listener: (events: Committed[]) => void) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close() {
    await Promise.all(this.redis.map((r) => r.quit().catch(() => r.disconnect())));
  }
}
