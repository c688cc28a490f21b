// Quote revisions: the guards the commands share, a revision's fields merged from input, its item rows, and the
// revision commands (clone a working revision, update it).
import { randomUUID } from "node:crypto";
import { actorOf as callerOf } from "../shared/actor";
import type { Principal } from "../shared/principal";
import { type Ctx, withTx } from "../shared/context";
import { randomToken, sha256Hex } from "../shared/crypto";
import { DomainError, errors, parseInput } from "../shared/errors";
import { MAX_AMOUNT } from "../shared/money";
import { sealSecret } from "../shared/secrets";
import { loadShippingTaxConfig } from "../shipping-tax/shipping-tax.service";
import { type QuoteActor, QUOTE_TRANSITIONS } from "./quote.machine";
import { issueQuoteInput, type LineItemInput, type RevisionInput, updateRevisionInput } from "./quotes.inputs";
import { SHARE_TOKEN_PURPOSE, defaultDeliveryMethod, revisionTotals, revisionView } from "./quote.view";
import { type RevisionFull, UUID_RE, lockQuote, writeTenant } from "./quote-read.service";

/** The caller as quote history takes it: no credential means the buyer's link; otherwise platform/actor.ts. */
export function actorOf(p: Principal | null): QuoteActor {
  if (!p) return { actorType: "buyer" };
  const { actorType, actorId } = callerOf({ principal: p });
  return { actorType: actorType as QuoteActor["actorType"], actorId };
}

export function newShareToken(config: Ctx["deps"]["config"]) {
  const token = `qt_${randomToken(32)}`; // 32 base62 characters: about 190 bits
  return { shareTokenHash: sha256Hex(token), shareTokenSealed: sealSecret(config, SHARE_TOKEN_PURPOSE, token) };
}

/** Statuses in which the offer can still change (a working revision cloned, edited, issued). */
const EDITABLE: readonly string[] = QUOTE_TRANSITIONS.issue.from;
function assertEditable(q: { status: string }) {
  if (!EDITABLE.includes(q.status)) {
    throw new DomainError("quote_not_editable", `A ${q.status} quote's offer can no longer change`, { status: q.status });
  }
}

export function assertFuture(ctx: Ctx, at: Date | null | undefined, path: string[]) {
  if (at && at.getTime() <= ctx.clock.now().getTime()) throw errors.validation([{ path, message: "must be in the future" }]);
}

// ---- revision fields ------------------------------------------------------------------------------------

/** A revision's stored fields, as one state (input merged onto what is there). */
export interface RevisionState {
  termsMode: string;
  netN: number | null;
  balanceNetN: number | null;
  depositType: string | null;
  depositValue: number | null;
  collectShipping: boolean | null;
  collectBilling: boolean | null;
  shippingMode: string;
  shippingAmount: number | null;
  taxCountry: string | null;
  notes: string | null;
  terms: string | null;
}

export const EMPTY_REVISION: RevisionState = {
  termsMode: "pay_in_full",
  netN: null,
  balanceNetN: null,
  depositType: null,
  depositValue: null,
  collectShipping: null,
  collectBilling: null,
  shippingMode: "none",
  shippingAmount: null,
  taxCountry: null,
  notes: null,
  terms: null,
};

/** Only the state columns of a revision row. */
function stateOf(r: RevisionState): RevisionState {
  return {
    termsMode: r.termsMode,
    netN: r.netN,
    balanceNetN: r.balanceNetN,
    depositType: r.depositType,
    depositValue: r.depositValue,
    collectShipping: r.collectShipping,
    collectBilling: r.collectBilling,
    shippingMode: r.shippingMode,
    shippingAmount: r.shippingAmount,
    taxCountry: r.taxCountry,
    notes: r.notes,
    terms: r.terms,
  };
}

/** Applies a revision body to a state and checks the combination (each issue names its field). */
export function mergeRevision(cur: RevisionState, input: RevisionInput, prefix: (string | number)[] = []): RevisionState {
  const next = stateOf(cur);
  if (input.paymentTerms) {
    next.termsMode = input.paymentTerms.mode;
    next.netN = input.paymentTerms.netN ?? null;
    next.balanceNetN = input.paymentTerms.balanceNetN ?? null;
    if (input.paymentTerms.mode !== "deposit_balance" && input.deposit === undefined) {
      next.depositType = null;
      next.depositValue = null;
    }
  }
  if (input.deposit !== undefined) {
    next.depositType = input.deposit?.type ?? null;
    next.depositValue = input.deposit?.value ?? null;
  }
  if (input.collect) {
    if (input.collect.shippingAddress !== undefined) next.collectShipping = input.collect.shippingAddress;
    if (input.collect.billingAddress !== undefined) next.collectBilling = input.collect.billingAddress;
  }
  if (input.shippingMode !== undefined) {
    next.shippingMode = input.shippingMode;
    if (input.shippingMode !== "flat" && input.shippingAmount === undefined) next.shippingAmount = null;
  }
  if (input.shippingAmount !== undefined) next.shippingAmount = input.shippingAmount;
  if (input.taxCountry !== undefined) next.taxCountry = input.taxCountry;
  if (input.notes !== undefined) next.notes = input.notes;
  if (input.terms !== undefined) next.terms = input.terms;
  const issues: { path: (string | number)[]; message: string }[] = [];
  if (next.depositType && next.termsMode !== "deposit_balance") issues.push({ path: [...prefix, "deposit"], message: "applies to deposit_balance terms only" });
  if (next.shippingMode === "flat" && next.shippingAmount === null) issues.push({ path: [...prefix, "shippingAmount"], message: "is required when shippingMode is flat" });
  if (next.shippingMode !== "flat" && next.shippingAmount !== null) issues.push({ path: [...prefix, "shippingAmount"], message: "applies to shippingMode flat only" });
  if (issues.length) throw errors.validation(issues);
  return next;
}

/** Line rows for a revision, positions in list order; `keep` are the ids an item may reuse. */
export function itemRows(revisionId: string, items: LineItemInput[], keep: ReadonlySet<string>, prefix: (string | number)[] = ["items"]) {
  const seen = new Set<string>();
  const issues: { path: (string | number)[]; message: string }[] = [];
  const rows = items.map((i, n) => {
    if (i.id !== undefined && (!keep.has(i.id) || seen.has(i.id))) {
      issues.push({ path: [...prefix, n, "id"], message: seen.has(i.id) ? "appears twice" : "is not an item of this revision (omit it to add a new line)" });
    }
    if (i.id) seen.add(i.id);
    return {
      id: i.id ?? randomUUID(),
      revisionId,
      position: n,
      name: i.name,
      description: i.description ?? null,
      unitPrice: i.unitPrice ?? null,
      quantity: i.quantity,
      type: i.type,
      optional: i.optional,
      selected: true,
      qtyEditable: i.qtyEditable,
      sku: i.sku ?? null,
      referenceId: i.referenceId ?? null,
      note: i.note ?? null,
      targetUnitPrice: i.targetUnitPrice ?? null,
      deliveryMethod: i.deliveryMethod ?? defaultDeliveryMethod(i.type),
    };
  });
  if (issues.length) throw errors.validation(issues);
  const totals = revisionTotals({ items: rows, shippingMode: "none", shippingAmount: null });
  if (totals.subtotal > MAX_AMOUNT) throw errors.validation([{ path: prefix, message: `The lines would total more than ${MAX_AMOUNT} minor units` }]);
  return rows;
}

export async function createRevision(ctx: Ctx, id: string, body?: unknown) {
  const t = writeTenant(ctx);
  parseInput(issueQuoteInput, body ?? {});
  return withTx(ctx, async (tx) => {
    const q = await lockQuote(tx, t, id);
    assertEditable(q);
    const revisions = await tx.db.quoteRevision.findMany({ where: { quoteId: q.id }, include: { items: { orderBy: { position: "asc" } } }, orderBy: { number: "asc" } });
    const working = revisions.find((r) => r.status === "working");
    if (working) throw new DomainError("working_revision_exists", "The quote already has a working revision; edit it", { revisionId: working.id });
    const source = revisions.find((r) => r.id === q.currentRevisionId) ?? revisions[revisions.length - 1];
    const newId = randomUUID();
    const now = tx.clock.now();
    const state = stateOf(source);
    await tx.db.quoteRevision.create({ data: { id: newId, quoteId: q.id, number: revisions[revisions.length - 1].number + 1, status: "working", ...state, createdAt: now, updatedAt: now } });
    if (source.items.length) {
      await tx.db.quoteLineItem.createMany({
        data: source.items.map(({ id: _id, revisionId: _r, ...item }) => ({ ...item, id: randomUUID(), revisionId: newId, selected: true })),
      });
    }
    await tx.db.quote.updateMany({ where: { id: q.id }, data: { updatedAt: now } });
    return revisionView((await tx.db.quoteRevision.findUniqueOrThrow({ where: { id: newId }, include: { items: { orderBy: { position: "asc" } } } })) as RevisionFull, (await loadShippingTaxConfig(tx, t)).taxRates);
  });
}

export async function updateRevision(ctx: Ctx, id: string, revisionId: string, body: unknown) {
  const t = writeTenant(ctx);
  const input = parseInput(updateRevisionInput, body ?? {});
  return withTx(ctx, async (tx) => {
    const q = await lockQuote(tx, t, id);
    const rev = UUID_RE.test(revisionId)
      ? await tx.db.quoteRevision.findFirst({ where: { id: revisionId, quoteId: q.id }, include: { items: { select: { id: true } } } })
      : null;
    if (!rev) throw errors.notFound("Revision");
    if (rev.status !== "working") {
      throw new DomainError("revision_not_editable", `Revision ${rev.number} is ${rev.status}; create a working revision with POST /quotes/{id}/revisions`, { status: rev.status });
    }
    assertEditable(q);
    const state = mergeRevision(rev, input);
    const now = tx.clock.now();
    if (input.items) {
      const rows = itemRows(rev.id, input.items, new Set(rev.items.map((i) => i.id)));
      await tx.db.quoteLineItem.deleteMany({ where: { revisionId: rev.id } });
      if (rows.length) await tx.db.quoteLineItem.createMany({ data: rows });
    }
    await tx.db.quoteRevision.update({ where: { id: rev.id }, data: { ...state, updatedAt: now } });
    await tx.db.quote.updateMany({ where: { id: q.id }, data: { updatedAt: now } });
    return revisionView((await tx.db.quoteRevision.findUniqueOrThrow({ where: { id: rev.id }, include: { items: { orderBy: { position: "asc" } } } })) as RevisionFull, (await loadShippingTaxConfig(tx, t)).taxRates);
  });
}
