// Sending the queued emails. The dispatcher of a process that runs jobs is woken after every commit that queued an
// email (queueEmail's afterCommit) and drains the outbox until nothing is due: one pass at a time per process
// (single flight; a wake during a pass runs one more drain after it). Every pass claims its rows with
// FOR UPDATE SKIP LOCKED, so several processes never send the same email twice. The periodic mail-dispatch job stays
// as the safety net (emails queued by a process without a dispatcher, retries, a crash between commit and wake).
// Rendering uses the application's brand and overrides; sending goes through nodemailer over SMTP_URL; without
// SMTP_URL the rendered email is kept in the outbox (GET /emails). A failed send is retried with backoff, then failed.
import type { Transporter } from "nodemailer";
import type { Ctx, Deps } from "../shared/context";
import { makeCtx } from "../shared/context";
import { nextAttempt, WorkQueue } from "../shared/work-queue";
import { PAYMENT_TEMPLATES, paymentContent } from "./payment-content";
import { type Brand, type EmailVars, renderEmail, type TemplateName, type TemplateText } from "./templates";
import { sellerOf } from "../documents/seller";

/**
 * The email queue (shared/work-queue.ts): a claim sets "claimedAt" and counts the attempt; a row claimed
 * STALE_CLAIM_MS ago by a process that never finished is claimed again. A failed send waits MAIL_RETRY_SCHEDULE
 * (1 min, 5 min, 30 min, 2 h by default) and is failed after MAIL_MAX_ATTEMPTS (5).
 */
const EMAILS = new WorkQueue({ table: "Email", lease: { since: "claimedAt" }, attempts: "attempts" });
const CLAIMED = ["id", "applicationId", "environmentId", "template", "audience", "toAddresses", "vars", "paymentId", "attempts"] as const;
const STALE_CLAIM_MS = 5 * 60_000;
const BATCH = 100;

const transports = new Map<string, Transporter>();
function transportFor(url: string): Transporter {
  let t = transports.get(url);
  // loaded when SMTP_URL is first used: without it mail stays in the outbox and nodemailer is never needed
  if (!t) transports.set(url, (t = (require("nodemailer") as typeof import("nodemailer")).createTransport(url)));
  return t;
}

type SenderBrand = Brand & { workspaceId: string; sellerEmail: string | null };

export async function brandOf(ctx: Ctx, applicationId: string): Promise<SenderBrand> {
  const app = await ctx.db.application.findUniqueOrThrow({ where: { id: applicationId }, select: { name: true, settings: true, workspaceId: true } });
  const s = (app.settings ?? {}) as { logoUrl?: string; brandColor?: string; supportEmail?: string; seller?: unknown };
  const seller = sellerOf(s.seller);
  return {
    name: app.name,
    legalName: seller.legalName,
    logoUrl: s.logoUrl ?? null,
    brandColor: s.brandColor ?? null,
    supportEmail: s.supportEmail ?? null,
    workspaceId: app.workspaceId,
    sellerEmail: seller.email,
  };
}

/** The merchant team: the application's supportEmail, else the workspace's owners and admins. */
async function merchantAddresses(ctx: Ctx, brand: SenderBrand): Promise<string[]> {
  if (brand.supportEmail) return [brand.supportEmail];
  const members = await ctx.db.member.findMany({ where: { workspaceId: brand.workspaceId, removedAt: null, workspaceRole: { in: ["owner", "workspace_admin"] } }, select: { user: { select: { email: true } } } });
  return [...new Set(members.map((m) => m.user.email))];
}

/**
 * Reply-To of a buyer email: the rep who acted (queued with it), else the seller's contact address, else the
 * application's supportEmail. Merchant-team emails reply to the buyer when there is one.
 */
function replyToOf(audience: string, vars: EmailVars, brand: SenderBrand): string | null {
  if (audience === "merchant") return vars.customerEmail ?? null;
  return vars.repEmail || brand.sellerEmail || brand.supportEmail || null;
}

export async function overrideOf(ctx: Ctx, e: { applicationId: string; environmentId: string }, name: string) {
  return ctx.db.emailTemplateOverride.findUnique({ where: { applicationId_environmentId_name: { applicationId: e.applicationId, environmentId: e.environmentId, name } } });
}

export function overrideText(o: { subject: string | null; heading: string | null; body: string | null; ctaLabel: string | null } | null): Partial<TemplateText> | null {
  if (!o) return null;
  return {
    ...(o.subject !== null ? { subject: o.subject } : {}),
    ...(o.heading !== null ? { heading: o.heading } : {}),
    ...(o.body !== null ? { body: o.body } : {}),
    ...(o.ctaLabel !== null ? { ctaLabel: o.ctaLabel === "" ? null : o.ctaLabel } : {}),
  };
}

const quoteName = (name: string) => `"${name.replace(/["\\\r\n]/g, "")}"`;

type DispatchCounts = { sent: number; kept: number; retried: number; failed: number };

/** One batch: claims due emails and sends (or keeps) each. Returns counts for operators. */
export async function dispatchEmails(deps: Deps): Promise<DispatchCounts> {
  const ctx = makeCtx(deps, null);
  const now = ctx.clock.now();
  const claimed = await EMAILS.claim(deps.sql, {
    due: (eb) => eb.and([eb("status", "in", ["queued", "sending"]), eb("nextAttemptAt", "<=", now)]),
    order: "nextAttemptAt",
    limit: BATCH,
    leaseMs: STALE_CLAIM_MS,
    now,
    set: { status: "sending" },
    returning: CLAIMED,
  });
  const out = { sent: 0, kept: 0, retried: 0, failed: 0 };
  // one batch reads each application's brand and each template override once
  const brands = new Map<string, Promise<SenderBrand>>();
  const overrides = new Map<string, Promise<Partial<TemplateText> | null>>();
  for (const e of claimed) {
    try {
      if (!brands.has(e.applicationId)) brands.set(e.applicationId, brandOf(ctx, e.applicationId));
      const brand = await brands.get(e.applicationId)!;
      const ok = `${e.applicationId}:${e.environmentId}:${e.template}`;
      if (!overrides.has(ok)) overrides.set(ok, overrideOf(ctx, e, e.template).then(overrideText));
      const to = e.audience === "merchant" ? await merchantAddresses(ctx, brand) : e.toAddresses;
      const stored = e.vars as unknown as EmailVars;
      const vars = e.paymentId && PAYMENT_TEMPLATES.has(e.template as TemplateName) ? { ...stored, ...(await paymentContent(ctx, e.paymentId, e.template as TemplateName)) } : stored;
      const rendered = await renderEmail(e.template as TemplateName, { ...vars, merchantName: vars.merchantName || brand.name }, brand, await overrides.get(ok)!);
      const replyTo = replyToOf(e.audience, vars, brand);
      const smtp = deps.config.SMTP_URL;
      if (smtp && to.length) {
        const from = `${quoteName(brand.name)} <${brand.supportEmail ?? "no-reply@localhost"}>`;
        await transportFor(smtp).sendMail({ from, to, ...(replyTo ? { replyTo } : {}), subject: rendered.subject, html: rendered.html, text: rendered.text });
      }
      const status = smtp && to.length ? "sent" : "kept";
      await EMAILS.finish(deps.sql, [e.id], { status, toAddresses: to, replyTo, subject: rendered.subject, html: rendered.html, text: rendered.text, sentAt: status === "sent" ? ctx.clock.now() : null, lastError: null });
      out[status]++;
    } catch (err) {
      const next = nextAttempt({ schedule: deps.config.MAIL_RETRY_SCHEDULE, maxAttempts: deps.config.MAIL_MAX_ATTEMPTS }, e.attempts, ctx.clock.now());
      const last = next.giveUp;
      await EMAILS.finish(deps.sql, [e.id], {
        status: last ? "failed" : "queued",
        lastError: String((err as Error)?.message ?? err).slice(0, 500),
        ...(next.giveUp ? {} : { nextAttemptAt: next.at }),
      });
      out[last ? "failed" : "retried"]++;
    }
  }
  return out;
}

/** Batches until nothing is due (a retried email waits for its backoff, so this ends). */
export async function drainEmails(deps: Deps): Promise<DispatchCounts> {
  const total = { sent: 0, kept: 0, retried: 0, failed: 0 };
  for (;;) {
    const r = await dispatchEmails(deps);
    for (const k of Object.keys(total) as (keyof DispatchCounts)[]) total[k] += r[k];
    if (r.sent + r.kept + r.retried + r.failed === 0) return total;
  }
}

// ---- the per-process dispatcher, woken at commit -------------------------------------------------------------

const dispatchers = new WeakMap<Deps, MailDispatcher>();

/** Wakes this process's dispatcher (if it runs one); queueEmail calls it once the transaction has committed. */
export function wakeMail(deps: Deps) {
  dispatchers.get(deps)?.wake();
}

export class MailDispatcher {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;

  constructor(private readonly deps: Deps) {}

  /** Registers for this process's commits and drains what is already due. */
  start() {
    this.stopped = false;
    dispatchers.set(this.deps, this);
    this.wake();
    return this;
  }

  async stop() {
    this.stopped = true;
    if (dispatchers.get(this.deps) === this) dispatchers.delete(this.deps);
    await this.running;
  }

  wake() {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = drainEmails(this.deps)
      .then(() => undefined)
      .catch((e) => console.error("[mail] dispatch failed", e))
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Resolves once the pass in flight (if any) is done; for shutdown and benches. */
  async idle() {
    while (this.running) await this.running;
  }
}
