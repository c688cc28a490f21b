// The one mail subsystem. Commands queue emails inside their transaction (one INSERT per transaction, at commit,
// beside the events), keyed by what caused them and the template (dedupeKey: ON CONFLICT DO NOTHING), so nothing
// is lost when the process dies after the commit and a job that runs twice sends nothing twice. Once the transaction
// commits, the process's dispatcher is woken and sends them within moments (mail-sender.ts); the mail job is the
// safety net. Without SMTP_URL the rendered email is kept in the outbox (GET /emails).
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { type Expression, expressionBuilder, type Insertable, type QueryCreator, type SqlBool, sql } from "kysely";
import type { Email, Prisma } from "../generated/prisma/client";
import { insertSelect } from "../db/insert-select";
import type { DB } from "../db/sql";
import { requireScope, requireTenant } from "../shared/guards";
import type { Ctx } from "../shared/context";
import { DomainError, errors, parseInput } from "../shared/errors";
import { keyset, parseListQuery, toPage } from "../shared/pagination";
import { brandOf, overrideOf, overrideText, wakeMail } from "./mail-sender";
import { EMAIL_TEMPLATES, type EmailVars, isTemplateName, renderEmail, SAMPLE_VARS, TEMPLATE_NAMES, type TemplateName, VARIABLES } from "./templates";

export { dispatchEmails, drainEmails, MailDispatcher } from "./mail-sender";

interface QueuedEmail {
  template: TemplateName;
  /** buyer addresses; the merchant team's are resolved when sending */
  to?: string[];
  vars: EmailVars;
  /** what caused it, e.g. the event id or `expiring:<revisionId>`; with the template, unique */
  cause: string;
  quoteId?: string | null;
  orderId?: string | null;
  paymentId?: string | null;
  /**
   * The buyer's address is read when the row is written (in the same statement): the payment's Net-N billing email,
   * else its order's email. Nothing is queued when neither has one.
   */
  toPaymentBuyer?: boolean;
  /** the row's id, when the caller needs it (e.g. a resend answers with it); default: a fresh one */
  id?: string;
}

/** A queued email, not yet written: its Email row's values, and whether its address is read from its payment. */
export type PendingEmail = {
  id: string;
  applicationId: string;
  environmentId: string;
  template: string;
  audience: string;
  toAddresses: string[];
  toPaymentBuyer: boolean;
  vars: EmailVars;
  dedupeKey: string;
  quoteId: string | null;
  orderId: string | null;
  paymentId: string | null;
  nextAttemptAt: string;
};
type Pending = PendingEmail;

/** Queues an email in the caller's transaction (written at commit, in one statement with the others). */
export function queueEmail(tx: Ctx, t: { applicationId: string; environmentId: string }, e: QueuedEmail): string | null {
  if (!tx.beforeCommit) throw new Error("queueEmail must run inside withTx");
  const audience = EMAIL_TEMPLATES[e.template].audience;
  const row: Pending = {
    id: e.id ?? randomUUID(),
    applicationId: t.applicationId,
    environmentId: t.environmentId,
    template: e.template,
    audience,
    toAddresses: audience === "merchant" ? [] : (e.to ?? []),
    toPaymentBuyer: audience === "buyer" && Boolean(e.toPaymentBuyer && e.paymentId),
    vars: e.vars,
    dedupeKey: `${e.cause}:${e.template}`,
    quoteId: e.quoteId ?? null,
    orderId: e.orderId ?? null,
    paymentId: e.paymentId ?? null,
    nextAttemptAt: tx.clock.now().toISOString(),
  };
  if (audience !== "merchant" && row.toAddresses.length === 0 && !row.toPaymentBuyer) return null;
  if (!tx.pendingEmails) {
    const list: Pending[] = [];
    tx.pendingEmails = list;
    tx.beforeCommit.push((c) => writeEmails(c));
    const deps = tx.deps;
    tx.afterCommit?.push(() => wakeMail(deps));
  }
  (tx.pendingEmails as Pending[]).push(row);
  return row.id;
}

/**
 * The INSERT of queued emails (ON CONFLICT on the dedupeKey: nothing twice), on `qc` (the root, the transaction, or
 * a statement's CTEs: the events outbox folds it into its own statement, events/outbox.ts, so queuing an email beside
 * an event costs no round trip). A toPaymentBuyer row reads its address from the payment and its order as they were
 * before the statement that carries it: they must have been written by an earlier statement. Rows are written only
 * if `when` holds.
 */
export function emailInsert(qc: QueryCreator<any>, emails: readonly PendingEmail[], when?: Expression<SqlBool>) {
  return emailRowsInsert(qc, emailRows(emails), when);
}

/** Queued emails as the Email rows emailRowsInsert writes (a toPaymentBuyer row's addresses come from SQL). */
export function emailRows(emails: readonly PendingEmail[]) {
  return emails.map(({ toPaymentBuyer, toAddresses, ...e }) => ({ ...e, toAddresses: toPaymentBuyer ? null : toAddresses, createdAt: e.nextAttemptAt }));
}
export type EmailRow = ReturnType<typeof emailRows>[number];

/** emailInsert from rows already mapped (or their template slots, src/db/template.ts). */
export function emailRowsInsert(qc: QueryCreator<any>, data: readonly EmailRow[], when?: Expression<SqlBool>) {
  const eb = expressionBuilder<{ r: DB["Email"]; to_: { addresses: string[] } }, "r" | "to_">();
  const billing = expressionBuilder<{ p: DB["Payment"]; o: DB["Order"] }, "p" | "o">();
  const buyer = sql<string | null>`COALESCE(${billing.ref("p.metadata")} #>> '{net30Acceptance,billingEmail}', ${billing.ref("o.email")})`;
  const buyerAddress = (qc as QueryCreator<DB>)
    .selectFrom("Payment as p")
    .leftJoin("Order as o", "o.id", "p.orderId")
    .select(sql<string>`lower(${buyer})`.as("address"))
    .where((w) => w.and([w("p.id", "=", eb.ref("r.paymentId")), sql<SqlBool>`${buyer} IS NOT NULL`]));
  const addresses = sql`LATERAL (SELECT COALESCE(${eb.ref("r.toAddresses")}, ARRAY(${buyerAddress})) AS addresses)`.as("to_");
  return insertSelect(qc, "Email", {
    data: [...data] as Omit<Insertable<DB["Email"]>, "toAddresses">[],
    set: { toAddresses: eb.ref("to_.addresses") },
    from: [addresses],
    where: eb.and([eb.or([eb(eb.ref("r.audience"), "=", "merchant"), eb(eb.fn<number>("cardinality", [eb.ref("to_.addresses")]), ">", 0)]), ...(when ? [when] : [])]),
  }).onConflict((oc) => oc.column("dedupeKey").doNothing());
}

/** The transaction's queued emails, taken (a later write skips them). */
export function takePendingEmails(ctx: Ctx): PendingEmail[] {
  const rows = ctx.pendingEmails as PendingEmail[] | undefined;
  if (!rows?.length) return [];
  return rows.splice(0);
}

async function writeEmails(ctx: Ctx) {
  const rows = takePendingEmails(ctx);
  if (rows.length) await emailInsert(ctx.sql, rows).execute();
}

// ---- reads: the outbox and the templates ------------------------------------------------------------------------

function emailView(e: Email) {
  return {
    id: e.id,
    template: e.template,
    audience: e.audience,
    to: e.toAddresses,
    replyTo: e.replyTo,
    status: e.status,
    subject: e.subject,
    html: e.html,
    text: e.text,
    quoteId: e.quoteId,
    orderId: e.orderId,
    paymentId: e.paymentId,
    attempts: e.attempts,
    lastError: e.lastError,
    sentAt: e.sentAt?.toISOString() ?? null,
    createdAt: e.createdAt.toISOString(),
  };
}
export type EmailView = ReturnType<typeof emailView>;

export const emailFilters = {
  template: z.string().max(100).optional(),
  status: z.enum(["queued", "sending", "sent", "kept", "failed"]).optional(),
  quoteId: z.uuid().optional(),
  to: z.string().max(320).optional(),
  paymentId: z.uuid().optional(),
};

/** GET /emails: the environment's outbox, newest first (applications:read). */
export async function listEmails(ctx: Ctx, query: unknown) {
  requireScope(ctx, "applications:read");
  const t = requireTenant(ctx);
  const page = parseListQuery(emailFilters, query);
  const ks = keyset(page);
  const where: Prisma.EmailWhereInput = { applicationId: t.applicationId, environmentId: t.environmentId, ...ks.where };
  if (page.template) where.template = page.template;
  if (page.status) where.status = page.status;
  if (page.quoteId) where.quoteId = page.quoteId;
  if (page.paymentId) where.paymentId = page.paymentId;
  if (page.to) where.toAddresses = { has: page.to.toLowerCase() };
  const rows = await ctx.db.email.findMany({ where, orderBy: ks.orderBy, take: ks.take });
  const result = toPage(rows, page);
  return { items: result.items.map(emailView), pagination: result.pagination };
}

const text = (max: number) => z.string().trim().min(1).max(max);
export const templateOverrideInput = z.strictObject({
  subject: text(250).nullable().optional(),
  heading: text(250).nullable().optional(),
  body: text(5000).nullable().optional(),
  /** "" removes the button */
  ctaLabel: z.string().trim().max(80).nullable().optional(),
});
export const previewInput = z.strictObject({ vars: z.record(z.string(), z.string().max(2000)).optional() });

function templateName(name: string): TemplateName {
  if (!isTemplateName(name)) throw errors.notFound("Email template");
  return name;
}

function templateView(name: TemplateName, o: Awaited<ReturnType<typeof overrideOf>>) {
  const def = EMAIL_TEMPLATES[name];
  const eff = { subject: o?.subject ?? def.subject, heading: o?.heading ?? def.heading, body: o?.body ?? def.body, ctaLabel: o?.ctaLabel != null ? (o.ctaLabel === "" ? null : o.ctaLabel) : def.ctaLabel };
  return {
    name,
    audience: def.audience,
    description: def.description,
    ...eff,
    defaults: { subject: def.subject, heading: def.heading, body: def.body, ctaLabel: def.ctaLabel },
    customized: o !== null,
    variables: VARIABLES,
    updatedAt: o?.updatedAt.toISOString() ?? null,
  };
}
export type EmailTemplateView = ReturnType<typeof templateView>;

/** GET /email-templates */
export async function listEmailTemplates(ctx: Ctx) {
  requireScope(ctx, "applications:read");
  const t = requireTenant(ctx);
  const rows = await ctx.db.emailTemplateOverride.findMany({ where: { applicationId: t.applicationId, environmentId: t.environmentId } });
  return TEMPLATE_NAMES.map((n) => templateView(n, rows.find((r) => r.name === n) ?? null));
}

/** GET /email-templates/{name} */
export async function getEmailTemplate(ctx: Ctx, name: string) {
  requireScope(ctx, "applications:read");
  const t = requireTenant(ctx);
  const n = templateName(name);
  return templateView(n, await overrideOf(ctx, t, n));
}

/** PUT /email-templates/{name}: the fields sent replace the application's override (null returns one to the default). */
export async function putEmailTemplate(ctx: Ctx, name: string, body: unknown) {
  requireScope(ctx, "applications:write");
  const t = requireTenant(ctx);
  const n = templateName(name);
  const input = parseInput(templateOverrideInput, body);
  const data = { subject: input.subject ?? null, heading: input.heading ?? null, body: input.body ?? null, ctaLabel: input.ctaLabel ?? null, updatedAt: ctx.clock.now() };
  // A template must still render: an unknown {{placeholder}} is a 422 naming the field.
  for (const field of ["subject", "heading", "body", "ctaLabel"] as const) {
    const v = data[field];
    const unknown = v ? [...v.matchAll(/\{\{\s*([A-Za-z]+)\s*\}\}/g)].map((m) => m[1]).filter((x) => !(VARIABLES as string[]).includes(x)) : [];
    if (unknown.length) throw errors.validation([{ path: [field], message: `unknown variable(s) ${unknown.map((u) => `{{${u}}}`).join(", ")}; known: ${VARIABLES.join(", ")}` }]);
  }
  const row = await ctx.db.emailTemplateOverride.upsert({
    where: { applicationId_environmentId_name: { applicationId: t.applicationId, environmentId: t.environmentId, name: n } },
    create: { applicationId: t.applicationId, environmentId: t.environmentId, name: n, ...data },
    update: data,
  });
  return templateView(n, row);
}

/** DELETE /email-templates/{name}: back to the default (idempotent). */
export async function deleteEmailTemplate(ctx: Ctx, name: string) {
  requireScope(ctx, "applications:write");
  const t = requireTenant(ctx);
  const n = templateName(name);
  await ctx.db.emailTemplateOverride.deleteMany({ where: { applicationId: t.applicationId, environmentId: t.environmentId, name: n } });
  return templateView(n, null);
}

/** POST /email-templates/{name}/preview: the template rendered with sample values (or the ones sent). */
export async function previewEmailTemplate(ctx: Ctx, name: string, body: unknown) {
  requireScope(ctx, "applications:read");
  const t = requireTenant(ctx);
  const n = templateName(name);
  const input = parseInput(previewInput, body ?? {});
  const unknown = Object.keys(input.vars ?? {}).filter((k) => !(VARIABLES as string[]).includes(k));
  if (unknown.length) throw errors.validation([{ path: ["vars", unknown[0]], message: `unknown variable; known: ${VARIABLES.join(", ")}` }]);
  const brand = await brandOf(ctx, t.applicationId);
  const rendered = await renderEmail(n, { ...SAMPLE_VARS, merchantName: brand.name, ...(input.vars as Partial<EmailVars>) }, brand, overrideText(await overrideOf(ctx, t, n)));
  if (!rendered.html) throw new DomainError("template_render_failed", "The template did not render");
  return rendered;
}
