// Sends due webhook deliveries: claims a batch with FOR UPDATE SKIP LOCKED (safe across processes), posts each
// signed envelope with a 10 s timeout and no redirects, records the attempt, schedules a retry or dead-letters.
// At least once: a claim is a lease, so a delivery whose worker died mid-send goes out again after it lapses.
import { Agent, fetch as guardedFetch } from "undici";
import { envelope } from "../events/events.service";
import type { Deps } from "../shared/context";
import { openSecret } from "../shared/secrets";
import { previousSecretOf, SIGNING_SECRET_PURPOSE } from "./endpoints.service";
import { hook } from "../shared/hook";
import { signatureHeader } from "./signature";
import { type Claimed as ClaimedRow, nextAttempt, WorkQueue } from "../shared/work-queue";
import { sqlInPrisma } from "../db/prisma-tx-dialect";
import type { Sql } from "../db/sql";
import type { Tx } from "../shared/context";
import { assertPublicLiteral, blockedAddressOf, guardedLookup, systemResolver } from "./url-policy";

export interface WorkerOptions {
  batchSize?: number;
  leaseMs?: number;
  timeoutMs?: number;
  maxAttempts?: number;
  /** longest sleep between passes when nothing is due */
  idleMs?: number;
  /** passes run side by side, so one batch's HTTP overlaps another's claim and bookkeeping */
  lanes?: number;
}

/** One delivery's outcome in a batch, as the delivery observer reads it. */
export interface DeliveryOutcome {
  endpointId: string;
  ok: boolean;
  dead: boolean;
  statusCode: number | null;
  eventType: string;
  /** the event's data (extension.ping carries its reason) */
  eventData?: unknown;
  /** which attempt of the delivery this was (1 for the first) */
  attempt: number;
  error: string | null;
}

/**
 * What extensions do with deliveries, inside the worker's bookkeeping transaction (extensions/install-health.service.ts,
 * registered at start-up by src/hooks.ts): after a batch's outcomes are recorded, failed probes reported and installs
 * suspended after repeated dead letters; with an endpoint's alert, an install's admins and publisher emailed.
 */
export const deliveryOutcomesHook = hook<(deps: Deps, tx: Tx, outcomes: DeliveryOutcome[]) => Promise<void>>("delivery outcomes handler (webhooks/delivery.worker.ts)");
export const endpointAlertHook = hook<(deps: Deps, tx: Tx, endpointId: string, message: string) => Promise<void>>("endpoint alert handler (webhooks/delivery.worker.ts)");

/** The delivery queue: a claim leases rows until "lockedUntil" and counts the attempt (shared/work-queue.ts). */
const DELIVERIES = new WorkQueue({ table: "WebhookDelivery", lease: { until: "lockedUntil" }, attempts: "attempts" });
const CLAIMED = ["id", "endpointId", "eventId", "attempts"] as const;
type Claimed = ClaimedRow<"WebhookDelivery", (typeof CLAIMED)[number]>;
type Outcome = { d: Claimed; dead?: boolean; ok: boolean; statusCode: number | null; error: string | null; excerpt: string | null; ms: number; at: Date; eventType?: string; eventData?: unknown };

const EXCERPT = 500;

export class DeliveryWorker {
  private readonly o: Required<WorkerOptions>;
  private running: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;
  private unsubscribe: (() => void) | null = null;
  /** Production deliveries connect through this agent: every address it connects to is checked (url-policy.ts). */
  private readonly guarded: Agent;

  constructor(private readonly deps: Deps, opts: WorkerOptions = {}) {
    this.o = { batchSize: 250, leaseMs: 60_000, timeoutMs: 10_000, maxAttempts: 5, idleMs: 30_000, lanes: 2, ...opts };
    this.guarded = new Agent({ connect: { lookup: guardedLookup(deps.resolver ?? systemResolver) as any } });
  }

  /** Runs in the background: woken by every commit that records events, and by a timer for retries. */
  start() {
    this.stopped = false;
    this.unsubscribe = this.deps.hub.onCommitted(() => this.kick());
    this.kick();
    return this;
  }

  async stop() {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    await this.guarded.close().catch(() => {});
  }

  kick() {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running = this.loop().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        this.kick();
      } else void this.scheduleNext();
    });
  }

  private async loop() {
    try {
      await this.drain(() => !this.stopped);
    } catch (e) {
      console.error("[webhooks] delivery pass failed", e);
    }
  }

  /** Lanes of passes until nothing is due; returns how many deliveries were attempted. */
  private async drain(go: () => boolean) {
    let total = 0;
    const lane = async () => {
      for (let n = go() ? await this.pass() : 0; n > 0; n = go() ? await this.pass() : 0) total += n;
    };
    await Promise.all(Array.from({ length: this.o.lanes }, lane));
    return total;
  }

  private async scheduleNext() {
    if (this.stopped) return;
    let wait = this.o.idleMs;
    try {
      const next = await this.deps.prisma.webhookDelivery.findFirst({
        where: { status: { in: ["pending", "retrying"] } },
        orderBy: { nextAttemptAt: "asc" },
        select: { nextAttemptAt: true, lockedUntil: true },
      });
      if (next) {
        const due = Math.max(next.nextAttemptAt.getTime(), next.lockedUntil?.getTime() ?? 0);
        wait = Math.min(this.o.idleMs, Math.max(0, due - this.deps.clock.now().getTime()));
      }
    } catch {
      /* database away: try again after idleMs */
    }
    if (this.stopped || this.running) return;
    this.timer = setTimeout(() => this.kick(), wait);
    this.timer.unref();
  }

  /** One pass (the `webhook-delivery` job): every due delivery, batch by batch; returns how many were attempted. */
  async runUntilIdle() {
    return this.drain(() => true);
  }

  /** Claims and sends one batch; returns the number attempted. */
  async pass(): Promise<number> {
    const { prisma, clock } = this.deps;
    const now = clock.now();
    const claimed = await DELIVERIES.claim(this.deps.sql, {
      due: (eb) => eb.and([eb("status", "in", ["pending", "retrying"]), eb("nextAttemptAt", "<=", now)]),
      order: "nextAttemptAt",
      limit: this.o.batchSize,
      leaseMs: this.o.leaseMs,
      now,
      returning: CLAIMED,
    });
    if (claimed.length === 0) return 0;

    const [events, endpoints] = await Promise.all([
      prisma.event.findMany({ where: { id: { in: [...new Set(claimed.map((c) => c.eventId))] } } }),
      prisma.webhookEndpoint.findMany({ where: { id: { in: [...new Set(claimed.map((c) => c.endpointId))] } } }),
    ]);
    const eventById = new Map(events.map((e) => [e.id, e]));
    const endpointById = new Map(endpoints.map((e) => [e.id, e]));

    const outcomes = await Promise.all(
      claimed.map(async (d): Promise<Outcome> => {
        const ep = endpointById.get(d.endpointId)!;
        const ev = eventById.get(d.eventId)!;
        const at = clock.now();
        if (ep.deletedAt || !ep.isActive) {
          return { d, ok: false, statusCode: null, error: "endpoint_inactive", excerpt: null, ms: 0, at };
        }
        const rawBody = JSON.stringify(envelope(ev));
        const previous = previousSecretOf(ep, at);
        const sealed = previous ? [previous.secret, ep.secret] : [ep.secret];
        const secrets = sealed.map((s) => openSecret(this.deps.config, SIGNING_SECRET_PURPOSE, s));
        const production = ev.environmentKind === "production";
        return this.send(d, ep.url, rawBody, signatureHeader(rawBody, secrets, Math.floor(at.getTime() / 1000)), ev, at, production);
      }),
    );
    for (const o of outcomes) {
      o.eventType = eventById.get(o.d.eventId)?.type;
      o.eventData = eventById.get(o.d.eventId)?.data;
    }
    await this.record(outcomes);
    return claimed.length;
  }

  private async send(d: Claimed, url: string, rawBody: string, signature: string, ev: { id: string; type: string }, at: Date, production: boolean): Promise<Outcome> {
    const started = performance.now();
    try {
      // An IP literal is connected to without a lookup, so it is checked here (the agent checks every name).
      if (production) assertPublicLiteral(url);
      const send = production ? (guardedFetch as unknown as typeof fetch) : fetch;
      const res = await send(url, {
        ...(production ? ({ dispatcher: this.guarded } as object) : {}),
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "quote-to-cash-webhooks/1",
          "x-service-signature": signature,
          "x-service-event-id": ev.id,
          "x-service-event-type": ev.type,
        },
        body: rawBody,
        redirect: "manual",
        signal: AbortSignal.timeout(this.o.timeoutMs),
      });
      const excerpt = await readExcerpt(res);
      const ok = res.status >= 200 && res.status < 300;
      return { d, ok, statusCode: res.status, error: ok ? null : `HTTP ${res.status}`, excerpt, ms: Math.round(performance.now() - started), at };
    } catch (e: any) {
      const blocked = blockedAddressOf(e);
      const error = blocked
        ? `blocked_address: ${blocked.message}`.slice(0, 200)
        : e?.name === "TimeoutError" ? `timeout after ${this.o.timeoutMs} ms` : String(e?.cause?.code ?? e?.message ?? e).slice(0, 200);
      return { d, ok: false, statusCode: null, error, excerpt: null, ms: Math.round(performance.now() - started), at };
    }
  }

  private async record(outcomes: Outcome[]) {
    const { prisma, clock, config } = this.deps;
    const retry = { schedule: config.WEBHOOK_RETRY_SCHEDULE, maxAttempts: this.o.maxAttempts };
    const now = clock.now();
    const ok = outcomes.filter((o) => o.ok);
    await prisma.$transaction(async (tx) => {
      const sql = sqlInPrisma(tx);
      await tx.webhookDeliveryAttempt.createMany({
        data: outcomes.map((o) => ({ deliveryId: o.d.id, number: o.d.attempts, statusCode: o.statusCode, error: o.error, responseExcerpt: o.excerpt, durationMs: o.ms, at: o.at })),
      });
      // lastStatusCode differs per row only in the 2xx range; keep the common case to one statement
      for (const code of new Set(ok.map((o) => o.statusCode))) {
        const ids = ok.filter((o) => o.statusCode === code).map((o) => o.d.id);
        await DELIVERIES.finish(sql, ids, { status: "succeeded", succeededAt: now, lastAttemptAt: now, lastError: null, lastStatusCode: code });
      }
      for (const o of outcomes.filter((x) => !x.ok)) {
        const next = o.error === "endpoint_inactive" ? ({ giveUp: true } as const) : nextAttempt(retry, o.d.attempts, now);
        o.dead = next.giveUp;
        await DELIVERIES.finish(sql, [o.d.id], {
          status: next.giveUp ? "dead_letter" : "retrying",
          ...(next.giveUp ? {} : { nextAttemptAt: next.at }),
          lastAttemptAt: now,
          lastStatusCode: o.statusCode,
          lastError: o.error,
        });
      }
      await this.trackAuthFailures(tx, sql, outcomes);
      // extension installs: failed probes reported, repeated dead letters suspend (extensions/install-health.service.ts)
      await deliveryOutcomesHook.call(
        this.deps,
        tx,
        outcomes.map((o) => ({
          endpointId: o.d.endpointId,
          ok: o.ok,
          dead: o.dead ?? false,
          statusCode: o.statusCode,
          eventType: o.eventType ?? "",
          eventData: o.eventData,
          attempt: o.d.attempts,
          error: o.error,
        })),
      );
    });
  }

  /** Three consecutive 401/403 answers from one endpoint raise one alert per streak; any other answer ends it. */
  private async trackAuthFailures(tx: Tx, sql: Sql, outcomes: Outcome[]) {
    const byEndpoint = new Map<string, Outcome[]>();
    for (const o of outcomes) {
      if (o.error === "endpoint_inactive") continue;
      byEndpoint.set(o.d.endpointId, [...(byEndpoint.get(o.d.endpointId) ?? []), o]);
    }
    // Sorted so that two batches touching the same endpoints lock them in one order (no deadlock).
    for (const [endpointId, list] of [...byEndpoint].sort(([a], [b]) => a.localeCompare(b))) {
      const auth = (o: Outcome) => o.statusCode === 401 || o.statusCode === 403;
      if (!list.some(auth)) {
        await tx.webhookEndpoint.updateMany({ where: { id: endpointId, authFailureStreak: { gt: 0 } }, data: { authFailureStreak: 0, alertRaisedForStreak: false } });
        continue;
      }
      // Two batches may finish at once for one endpoint: lock its row so each reads the streak the other wrote,
      // otherwise both count to three from the same start and raise two alerts for one streak.
      await sql.selectFrom("WebhookEndpoint").select("id").where("id", "=", endpointId).forUpdate().execute();
      const ep = await tx.webhookEndpoint.findUniqueOrThrow({ where: { id: endpointId }, select: { authFailureStreak: true, alertRaisedForStreak: true } });
      let streak = ep.authFailureStreak;
      let raised = ep.alertRaisedForStreak;
      for (const o of list.sort((a, b) => a.at.getTime() - b.at.getTime())) {
        if (auth(o)) {
          streak++;
          if (streak >= 3 && !raised) {
            // The streak may have begun in earlier batches: its answers come from the attempt log (this batch's
            // attempts are already written in this transaction; earlier batches committed before our lock). Not
            // filtered by time: a batch that committed first may hold answers received after this one's.
            const last = await tx.webhookDeliveryAttempt.findMany({
              where: { delivery: { endpointId }, statusCode: { in: [401, 403] } },
              orderBy: [{ at: "desc" }, { number: "desc" }],
              take: 3,
              select: { statusCode: true },
            });
            await tx.webhookAlert.create({ data: { endpointId, kind: "consecutive_auth_failures", statusCodes: last.flatMap((a) => (a.statusCode === null ? [] : [a.statusCode])).reverse() } });
            // an extension install's endpoint: the application's admins and the extension's publisher hear of it
            await endpointAlertHook.call(this.deps, tx, endpointId, "it answered 401 or 403 three times in a row (a wrong signing secret?). Deliveries keep retrying; fetch the current secret and verify again.");
            raised = true;
          }
        } else {
          streak = 0;
          raised = false;
        }
      }
      await tx.webhookEndpoint.update({ where: { id: endpointId }, data: { authFailureStreak: streak, alertRaisedForStreak: raised } });
    }
  }
}

async function readExcerpt(res: Response): Promise<string | null> {
  if (!res.body) return null;
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < EXCERPT * 4) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } catch {
    /* a body cut short is still an answer */
  } finally {
    void reader.cancel().catch(() => {});
  }
  const text = Buffer.concat(chunks).toString("utf8").slice(0, EXCERPT);
  return text || null;
}
