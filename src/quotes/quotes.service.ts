// Quotes, merchant commands (quotes.md parts 2-4, decisions.md part 3): create, update, issue, comments and the buyer
// link's rotation; reads are in quote-read.service.ts, revisions in quote-revisions.service.ts. Every command locks
// the quote row first (SELECT … FOR UPDATE), so the rules that span rows (one working revision, the issued revision
// frozen, one current offer) hold under concurrency. Numbers come from a counter row bumped in the creating
// transaction: consecutive, no gaps.
import { randomUUID } from "node:crypto";
import { Prisma } from "../generated/prisma/client";
import { findOrCreateCustomerByEmail } from "../customers/customers.service";
import { type EventTenant, principalEventTenant, recordEvent } from "../events/events.service";
import { type Ctx, withTx } from "../shared/context";
import { DomainError, errors, parseInput } from "../shared/errors";
import { MAX_AMOUNT } from "../shared/money";
import { loadShippingTaxConfig } from "../shipping-tax/shipping-tax.service";
import { queueQuoteEmails } from "./quote-emails";
import { currentParties, partiesJson, sellerBlock } from "../documents/parties";
import { moveQuote, nextQuoteStatus, PATCH_STATUS_ACTIONS, type QuoteActor } from "./quote.machine";
import { commentInput, createQuoteInput, issueQuoteInput, type LineItemInput, updateQuoteInput } from "./quotes.inputs";
import { EMPTY_REVISION, type RevisionState, actorOf, assertFuture, itemRows, mergeRevision, newShareToken } from "./quote-revisions.service";
import { findQuote, loadQuote, lockQuote, writeTenant } from "./quote-read.service";
import { commentView, depositAmountOf, quoteEventData, quoteView, revisionTotals, revisionView } from "./quote.view";

// ---- creating (shared with requests) -------------------------------------------------------------------------

interface NewQuote {
  status: "draft" | "requested";
  source: "api" | "dashboard" | "request_form" | "cart";
  customerEmail: string;
  companyName?: string | null;
  buyerReference?: string | null;
  expiresAt?: Date | null;
  internalNote?: string | null;
  requestFormId?: string | null;
  cartId?: string | null;
  revision: RevisionState;
  items: LineItemInput[];
  /** the buyer's written need (requests): the first shared comment */
  firstComment?: { body: string; authorType: "buyer" | "merchant"; authorName?: string | null } | null;
}

/**
 * Inserts a quote, its first (working) revision, lines, history and optional first comment inside the caller's
 * transaction. The customer is found or created by email (race-safe) before the number is taken, so the counter
 * row's lock is held only for the inserts.
 */
export async function insertQuote(tx: Ctx, tenant: EventTenant, n: NewQuote, actor: QuoteActor, currency: string): Promise<string> {
  const customer = await findOrCreateCustomerByEmail(tx, { email: n.customerEmail, company: n.companyName ?? null }, tenant);
  const { lastSeq: seq } = await tx.sql
    .insertInto("QuoteCounter")
    .values({ applicationId: tenant.applicationId, environmentId: tenant.environmentId, lastSeq: 1 })
    .onConflict((oc) => oc.columns(["applicationId", "environmentId"]).doUpdateSet((eb) => ({ lastSeq: eb("QuoteCounter.lastSeq", "+", 1) })))
    .returning("lastSeq")
    .executeTakeFirstOrThrow();
  const quoteId = randomUUID();
  const revisionId = randomUUID();
  const at = tx.clock.now();
  const rows = itemRows(revisionId, n.items, new Set());
  await tx.db.quote.create({
    data: {
      id: quoteId,
      applicationId: tenant.applicationId,
      environmentId: tenant.environmentId,
      seq,
      number: `Q-${seq}`,
      status: n.status,
      currency,
      customerId: customer.id,
      customerEmail: n.customerEmail,
      companyName: n.companyName ?? null,
      buyerReference: n.buyerReference ?? null,
      source: n.source,
      ...newShareToken(tx.deps.config),
      expiresAt: n.expiresAt ?? null,
      internalNote: n.internalNote ?? null,
      requestFormId: n.requestFormId ?? null,
      cartId: n.cartId ?? null,
      createdAt: at,
      updatedAt: at,
      revisions: { create: { id: revisionId, number: 1, status: "working", ...n.revision, createdAt: at, updatedAt: at } },
      history: { create: { fromStatus: null, toStatus: n.status, action: n.status === "draft" ? "create" : "request", actorType: actor.actorType, actorId: actor.actorId ?? null, createdAt: at } },
      ...(n.firstComment
        ? { comments: { create: { visibility: "shared", authorType: n.firstComment.authorType, authorName: n.firstComment.authorName ?? null, body: n.firstComment.body, createdAt: at } } }
        : {}),
    },
  });
  if (rows.length) await tx.db.quoteLineItem.createMany({ data: rows });
  return quoteId;
}

// ---- commands -----------------------------------------------------------------------------------------------

export async function createQuote(ctx: Ctx, body: unknown) {
  const t = writeTenant(ctx);
  const input = parseInput(createQuoteInput, body);
  assertFuture(ctx, input.expiresAt, ["expiresAt"]);
  const revision = mergeRevision(EMPTY_REVISION, input);
  const p = ctx.principal!;
  return withTx(ctx, async (tx) => {
    const id = await insertQuote(
      tx,
      principalEventTenant(tx),
      {
        status: "draft",
        source: p.type === "clerk_jwt" ? "dashboard" : "api",
        customerEmail: input.customerEmail,
        companyName: input.companyName,
        buyerReference: input.buyerReference,
        expiresAt: input.expiresAt,
        internalNote: input.internalNote,
        revision,
        items: input.items ?? [],
      },
      actorOf(p),
      p.application!.currency,
    );
    return quoteView(tx, await loadQuote(tx, t, id));
  });
}

export async function updateQuote(ctx: Ctx, id: string, body: unknown) {
  const t = writeTenant(ctx);
  const input = parseInput(updateQuoteInput, body ?? {});
  assertFuture(ctx, input.expiresAt, ["expiresAt"]);
  if (input.declinedReason && input.status !== "declined") {
    throw errors.validation([{ path: ["declinedReason"], message: "is set only with status declined" }]);
  }
  return withTx(ctx, async (tx) => {
    const q = await lockQuote(tx, t, id);
    const fields: Prisma.QuoteUpdateManyMutationInput = {};
    if (input.buyerReference !== undefined) fields.buyerReference = input.buyerReference;
    if (input.expiresAt !== undefined) fields.expiresAt = input.expiresAt;
    if (input.internalNote !== undefined) fields.internalNote = input.internalNote;
    if (Object.keys(fields).length) await tx.db.quote.updateMany({ where: { id: q.id }, data: { ...fields, updatedAt: tx.clock.now() } });
    if (input.status !== undefined) {
      const action = PATCH_STATUS_ACTIONS[input.status as keyof typeof PATCH_STATUS_ACTIONS];
      if (!action) throw new DomainError("invalid_quote_transition", `A PATCH cannot move a quote to ${input.status}`, { from: q.status, to: input.status });
      const also = action === "decline" ? { declinedReason: input.declinedReason ?? null, declinedBy: "merchant" } : {};
      await moveQuote(tx, q, action, { ...actorOf(tx.principal), reason: input.declinedReason ?? null }, also);
      const full = await loadQuote(tx, t, q.id);
      if (action === "decline") {
        const ev = await recordEvent(tx, principalEventTenant(tx), "quote.declined", quoteEventData(full, { declinedBy: "merchant", reason: full.declinedReason }));
        queueQuoteEmails(tx, full, ["customer.quote_declined"], ev.id, { reason: full.declinedReason });
      }
      return quoteView(tx, full);
    }
    return quoteView(tx, await loadQuote(tx, t, q.id));
  });
}

/** Thirty days after issue when the quote has no future expiry of its own (decisions.md part 3). */
const DEFAULT_VALIDITY_MS = 30 * 24 * 3600 * 1000;

/** POST /quotes/{id}/issue -> { quote (merchant view, with shareToken), revision (the one just issued) } */
export async function issueQuote(ctx: Ctx, id: string, body: unknown) {
  const t = writeTenant(ctx);
  parseInput(issueQuoteInput, body ?? {});
  return withTx(ctx, async (tx) => {
    const q = await lockQuote(tx, t, id);
    nextQuoteStatus(q.status, "issue"); // refuse before any other check
    const rev = await tx.db.quoteRevision.findFirst({ where: { quoteId: q.id, status: "working" }, include: { items: { orderBy: { position: "asc" } } } });
    if (!rev) {
      throw new DomainError("no_working_revision", "The quote has no working revision to issue; create one with POST /quotes/{id}/revisions", { currentRevisionId: q.currentRevisionId });
    }
    if (rev.items.length === 0) throw new DomainError("empty_revision", "The working revision has no lines", { revisionId: rev.id });
    const unpriced = rev.items.filter((i) => i.unitPrice === null).map((i) => i.id);
    if (unpriced.length) throw new DomainError("unpriced_items", `${unpriced.length} line(s) have no unitPrice`, { itemIds: unpriced });
    if (rev.termsMode !== "pay_in_full") {
      const connector = await tx.db.connector.findFirst({ where: { ...t, kind: "invoice_terms", status: "active" }, select: { id: true } });
      if (!connector) {
        throw new DomainError("net_terms_not_configured", `${rev.termsMode} terms need an active invoice_terms connector (POST /connectors)`, { mode: rev.termsMode });
      }
    }
    // the working revision's live tax, frozen below with the revision (quote-tax.ts)
    const totals = revisionTotals(rev, (await loadShippingTaxConfig(tx, t)).taxRates);
    if (totals.total > MAX_AMOUNT) throw errors.validation([{ path: ["items"], message: `The revision would total more than ${MAX_AMOUNT} minor units` }]);
    let depositAmount: number | null = null;
    if (rev.termsMode === "deposit_balance") {
      depositAmount = depositAmountOf(rev, totals.total);
      if (depositAmount === null) throw errors.validation([{ path: ["deposit"], message: "is required for deposit_balance terms" }]);
      if (depositAmount < 1 || depositAmount >= totals.total) {
        throw errors.validation([{ path: ["deposit", "value"], message: `gives a deposit of ${depositAmount}; it must be at least 1 and below the total ${totals.total}` }]);
      }
    }
    const now = tx.clock.now();
    if (q.currentRevisionId) {
      await tx.db.quoteRevision.updateMany({ where: { id: q.currentRevisionId, status: "issued" }, data: { status: "superseded", supersededAt: now, updatedAt: now } });
    }
    // the seller and buyer as they are now, frozen with the revision; empty notes and terms take the seller's defaults
    const { defaults, ...parties } = await currentParties(tx, q.id);
    await tx.db.quoteRevision.update({
      where: { id: rev.id },
      data: {
        status: "issued",
        issuedAt: now,
        depositAmount,
        taxLines: totals.taxLines as unknown as Prisma.InputJsonValue,
        parties: partiesJson(parties),
        notes: rev.notes ?? defaults.notes,
        terms: rev.terms ?? defaults.terms,
        updatedAt: now,
      },
    });
    const expiresAt = q.expiresAt && q.expiresAt.getTime() > now.getTime() ? q.expiresAt : new Date(now.getTime() + DEFAULT_VALIDITY_MS);
    await moveQuote(tx, q, "issue", actorOf(tx.principal), { currentRevisionId: rev.id, expiresAt });
    const full = await loadQuote(tx, t, q.id);
    const ev = await recordEvent(tx, principalEventTenant(tx), "quote.proposed", quoteEventData(full, { revisionId: rev.id, supersededRevisionId: q.currentRevisionId }));
    queueQuoteEmails(tx, full, ["customer.quote_proposed"], ev.id);
    return { quote: quoteView(tx, full), revision: revisionView(full.revisions.find((r) => r.id === rev.id)!) };
  });
}

export async function addComment(ctx: Ctx, id: string, body: unknown) {
  const t = writeTenant(ctx);
  const input = parseInput(commentInput, body);
  const p = ctx.principal!;
  return withTx(ctx, async (tx) => {
    const q = await lockQuote(tx, t, id);
    const actor = actorOf(p);
    const row = await tx.db.quoteComment.create({
      data: {
        quoteId: q.id,
        visibility: input.visibility,
        authorType: "merchant",
        authorId: actor.actorId ?? null,
        authorName: input.authorName ?? p.application?.name ?? null,
        body: input.body,
        createdAt: tx.clock.now(),
      },
    });
    if (row.visibility === "shared") {
      const full = await loadQuote(tx, t, q.id);
      const ev = await recordEvent(tx, principalEventTenant(tx), "quote.comment_added", quoteEventData(full, { comment: commentView(row) }));
      // named as the rep signed, else as the seller (its legal name), never the bare application name
      queueQuoteEmails(tx, full, ["customer.quote_comment_added"], ev.id, { commentAuthor: input.authorName ?? sellerBlock(full.application).name, commentBody: row.body });
    }
    return commentView(row);
  });
}

export async function rotateLink(ctx: Ctx, id: string, body?: unknown) {
  const t = writeTenant(ctx);
  parseInput(issueQuoteInput, body ?? {});
  return withTx(ctx, async (tx) => {
    const q = await lockQuote(tx, t, id);
    await tx.db.quote.updateMany({ where: { id: q.id }, data: { ...newShareToken(tx.deps.config), updatedAt: tx.clock.now() } });
    return quoteView(tx, await loadQuote(tx, t, q.id));
  });
}

/**
 * Checkout completion, in the transaction that creates the order: an accepted quote becomes converted and
 * quote.converted carries the orderId, so no reader ever sees the order beside a quote that says accepted.
 */
export async function convertQuoteForOrder(tx: Ctx, tenant: EventTenant, quoteId: string, orderId: string) {
  const q = await tx.sql.selectFrom("Quote").select(["id", "status"]).where("id", "=", quoteId).forUpdate().executeTakeFirst();
  if (!q || q.status !== "accepted") return;
  await moveQuote(tx, q, "convert", { actorType: "system" }, { orderId, convertedAt: tx.clock.now() });
  const full = (await findQuote(tx, tenant, quoteId))!;
  await recordEvent(tx, tenant, "quote.converted", quoteEventData(full, { orderId }));
}
