// Quote requests (quotes.md parts 2-5, decisions.md part 3): hosted request forms with a qrf_ token shown once,
// the keyless intake POST /quote-requests with its bot protection, and a cart's request for a quote. Every
// request opens a quote in `requested` whose lines are unpriced; a buyer's price is only ever a target.
import { z } from "zod";
import { loadCartForCheckout } from "../carts/carts.service";
import { emailSchema } from "../shared/email";
import { principalEventTenant, recordEvent, tenantOf } from "../events/events.service";
import type { QuoteRequestForm } from "../generated/prisma/client";
import { type Ctx, withTx } from "../shared/context";
import { randomToken, sha256Hex } from "../shared/crypto";
import { DomainError, errors, parseInput } from "../shared/errors";
import { amount } from "../shared/money";
import { keyset, parsePage, toPage } from "../shared/pagination";
import { reportLimit } from "../shared/context";
import { type OneTimeSecret, revealOnce } from "../shared/secrets";
import { queueQuoteEmails } from "./quote-emails";
import { actorOf, EMPTY_REVISION } from "./quote-revisions.service";
import { buyerBaseUrl, quoteEventData, quoteView } from "./quote.view";
import { findQuote, writeTenant, readTenant, type TenantIds } from "./quote-read.service";
import { insertQuote } from "./quotes.service";
import { clearable, type LineItemInput, MAX_QUOTE_ITEMS, text } from "./quotes.inputs";
import { isUuid } from "../shared/ids";

// ---- forms ------------------------------------------------------------------------------------------------

const formFieldsInput = z.strictObject({
  /** false gives a prose-only form (message, no item rows) */
  lineItems: z.boolean().default(true),
  /** true lets buyers name a target price per line */
  targetPrice: z.boolean().default(false),
  /** true requires a bot-challenge token verified server-side */
  requireBotChallenge: z.boolean().default(false),
});
type FormFields = z.output<typeof formFieldsInput>;

export const createFormInput = z.strictObject({
  name: text(200),
  fields: formFieldsInput.prefault({}),
  successMessage: clearable(1_000),
});

const FORM_TOKEN = /^qrf_[A-Za-z0-9]{32}$/;

function mintFormToken() {
  const token = `qrf_${randomToken(32)}`;
  return { token, tokenHash: sha256Hex(token), tokenPrefix: token.slice(0, 12) };
}

/** A form as every read shows it; the token and the hosted URL (which carries it) only when just minted. */
function formView(ctx: Ctx, f: QuoteRequestForm, settings: unknown, minted?: string) {
  return {
    id: f.id,
    name: f.name,
    fields: f.fields as FormFields,
    successMessage: f.successMessage,
    tokenPrefix: f.tokenPrefix,
    formToken: minted ? (revealOnce(minted) as OneTimeSecret | null) : null,
    hostedUrl: minted ? (revealOnce(`${buyerBaseUrl(ctx, settings)}/q/request/${minted}`) as OneTimeSecret | null) : null,
    createdAt: f.createdAt.toISOString(),
    updatedAt: f.updatedAt.toISOString(),
  };
}
export type FormView = ReturnType<typeof formView>;

async function appSettings(ctx: Ctx, applicationId: string) {
  return (await ctx.db.application.findUnique({ where: { id: applicationId }, select: { settings: true } }))?.settings ?? {};
}

export async function createRequestForm(ctx: Ctx, body: unknown) {
  const t = writeTenant(ctx);
  const input = parseInput(createFormInput, body);
  const minted = mintFormToken();
  const now = ctx.clock.now();
  const row = await ctx.db.quoteRequestForm.create({
    data: { ...t, name: input.name, fields: input.fields, successMessage: input.successMessage ?? null, tokenHash: minted.tokenHash, tokenPrefix: minted.tokenPrefix, createdAt: now, updatedAt: now },
  });
  return formView(ctx, row, await appSettings(ctx, t.applicationId), minted.token);
}

export async function listRequestForms(ctx: Ctx, query: unknown) {
  const t = readTenant(ctx);
  const page = parsePage(query);
  const ks = keyset(page);
  const rows = await ctx.db.quoteRequestForm.findMany({ where: { ...t, ...ks.where }, orderBy: ks.orderBy, take: ks.take });
  const result = toPage(rows, page);
  return { items: result.items.map((f) => formView(ctx, f, null)), pagination: result.pagination };
}

export async function rotateFormToken(ctx: Ctx, id: string, body?: unknown) {
  const t = writeTenant(ctx);
  parseInput(z.strictObject({}), body ?? {});
  if (!isUuid(id)) throw errors.notFound("Quote request form");
  const minted = mintFormToken();
  const [row] = await ctx.db.quoteRequestForm.updateManyAndReturn({
    where: { id, ...t },
    data: { tokenHash: minted.tokenHash, tokenPrefix: minted.tokenPrefix, updatedAt: ctx.clock.now() },
  });
  if (!row) throw errors.notFound("Quote request form");
  return formView(ctx, row, await appSettings(ctx, t.applicationId), minted.token);
}

// ---- intake ------------------------------------------------------------------------------------------------

const requestItem = z.strictObject({
  name: text(500),
  sku: clearable(200),
  referenceId: clearable(200),
  quantity: z.number().int().min(1).max(1_000_000).default(1),
  targetUnitPrice: amount.nullish(),
  note: clearable(2_000),
});

export const quoteRequestInput = z.strictObject({
  formToken: z.string().trim().min(1).max(200),
  email: emailSchema,
  companyName: clearable(200),
  /** the buyer's name and phone: stored on the customer when it is created or has none yet */
  name: clearable(200),
  phone: clearable(50),
  buyerReference: clearable(200),
  message: clearable(5_000),
  items: z.array(requestItem).max(MAX_QUOTE_ITEMS).optional(),
  cartId: z.string().trim().max(100).optional(),
  /** epoch milliseconds when the form loaded: the minimum fill time is measured from it */
  formLoadedAt: z.number().int().min(0).max(8.64e15),
  /** the honeypot: people never see it, so anything in it marks a bot */
  website: z.string().max(2_000).optional(),
  botChallengeToken: z.string().trim().min(1).max(4_096).optional(),
});

/** What every accepted submission answers, real or honeypot: nothing tells a bot it was caught. */
const RECEIVED = { received: true } as const;

/**
 * What the hosted request form page shows (pages/quote.page.tsx): the form's fields, its success message and the
 * merchant's branding. Limited per IP like the quote links; an unknown or rotated-out token is 404.
 */
export async function requestFormForBuyer(ctx: Ctx, formToken: string) {
  if (ctx.ip) reportLimit(ctx, await ctx.deps.limits.consume("quoteLinkIp", ctx.ip));
  const form = FORM_TOKEN.test(formToken) ? await ctx.db.quoteRequestForm.findUnique({ where: { tokenHash: sha256Hex(formToken) } }) : null;
  if (!form) throw errors.notFound("Quote request form");
  const app = await ctx.db.application.findUniqueOrThrow({ where: { id: form.applicationId }, select: { name: true, settings: true, currency: true } });
  const s = (app.settings ?? {}) as { logoUrl?: string; brandColor?: string };
  let currencyDigits = 2;
  try {
    currencyDigits = new Intl.NumberFormat("en-US", { style: "currency", currency: app.currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    /* an unknown code keeps 2 */
  }
  return {
    fields: form.fields as FormFields,
    successMessage: form.successMessage,
    merchant: { name: app.name, logoUrl: s.logoUrl ?? null, brandColor: s.brandColor ?? null },
    currency: app.currency,
    currencyDigits,
  };
}
export type BuyerForm = Awaited<ReturnType<typeof requestFormForBuyer>>;

/** The country a cart's request is taxed in (quote-tax.ts): its shipping address's, else its billing address's. */
function cartCountry(cart: { shippingAddress: unknown; billingAddress: unknown }): string | null {
  const code = ((cart.shippingAddress ?? cart.billingAddress) as { countryCode?: unknown } | null)?.countryCode;
  return typeof code === "string" && /^[A-Za-z]{2}$/.test(code) ? code.toUpperCase() : null;
}

/** Unpriced quote lines from a cart's lines: the cart's price is kept as the buyer's target only. */
function linesFromCart(lines: { name: string; referenceId: string | null; quantity: number; unitPrice: number; type: string; requiresShipping: boolean }[]): LineItemInput[] {
  return lines.map((l) => ({
    name: l.name,
    referenceId: l.referenceId,
    sku: null,
    quantity: l.quantity,
    unitPrice: null,
    targetUnitPrice: l.unitPrice,
    type: l.type as LineItemInput["type"],
    optional: false,
    qtyEditable: false,
    note: null,
    description: null,
    deliveryMethod: l.requiresShipping ? "shipment" : "none",
  }));
}

/** Verifies a Turnstile-compatible token server-side; fails closed (503) when unconfigured or unreachable. */
async function verifyBotChallenge(ctx: Ctx, token: string | undefined) {
  const { BOT_CHALLENGE_VERIFY_URL: url, BOT_CHALLENGE_SECRET: secret } = ctx.deps.config;
  if (!url || !secret) {
    throw new DomainError("bot_challenge_not_configured", "This form requires a bot challenge, but the server has no BOT_CHALLENGE_VERIFY_URL and BOT_CHALLENGE_SECRET");
  }
  if (!token) throw errors.validation([{ path: ["botChallengeToken"], message: "is required by this form" }]);
  let ok: boolean;
  try {
    const form = new URLSearchParams({ secret, response: token, ...(ctx.ip ? { remoteip: ctx.ip } : {}) });
    const res = await fetch(url, { method: "POST", body: form, signal: AbortSignal.timeout(5_000) });
    const body = (await res.json().catch(() => null)) as { success?: unknown } | null;
    if (!res.ok) throw new Error(`siteverify answered ${res.status}`);
    ok = body?.success === true;
  } catch (e) {
    console.error("[quote-requests] bot challenge verification failed", e instanceof Error ? e.message : e);
    throw new DomainError("bot_challenge_unavailable", "The bot challenge could not be verified; retry shortly");
  }
  if (!ok) throw new DomainError("bot_challenge_failed", "The bot challenge was not passed");
}

/**
 * POST /quote-requests (keyless; the form token is the authority). Order: the per-IP limit, the body, the form,
 * the honeypot (a success-shaped answer, nothing written), the minimum fill time, the bot challenge, then the
 * quote: customer found or created by email, lines unpriced, the message as the first shared comment,
 * quote.requested recorded with it.
 */
export async function submitQuoteRequest(ctx: Ctx, body: unknown): Promise<typeof RECEIVED> {
  await submitQuoteRequestWithNumber(ctx, body);
  return RECEIVED;
}

/**
 * The hosted form's submission (pages/quote): as POST /quote-requests, and the number of the quote it opened (the
 * buyer's reference on the thank-you page); null for a tripped honeypot.
 */
export async function submitQuoteRequestWithNumber(ctx: Ctx, body: unknown): Promise<{ number: string | null }> {
  if (ctx.ip) reportLimit(ctx, await ctx.deps.limits.consume("quoteRequestIp", ctx.ip));
  const input = parseInput(quoteRequestInput, body);
  const form = FORM_TOKEN.test(input.formToken) ? await ctx.db.quoteRequestForm.findUnique({ where: { tokenHash: sha256Hex(input.formToken) } }) : null;
  if (!form) throw errors.notFound("Quote request form");
  if (input.website && input.website.trim() !== "") return { number: null };
  const now = ctx.clock.now().getTime();
  if (now - input.formLoadedAt < ctx.deps.config.QUOTE_REQUEST_MIN_FILL_MS) {
    throw new DomainError("form_submitted_too_fast", "The form was submitted too quickly after it loaded; please try again");
  }
  const fields = form.fields as FormFields;
  if (fields.requireBotChallenge) await verifyBotChallenge(ctx, input.botChallengeToken);
  const items = input.items ?? [];
  if (!fields.lineItems && items.length) throw errors.validation([{ path: ["items"], message: "this form takes a written message only" }]);
  if (!fields.targetPrice) {
    const priced = items.findIndex((i) => i.targetUnitPrice != null);
    if (priced >= 0) throw errors.validation([{ path: ["items", priced, "targetUnitPrice"], message: "this form does not take target prices" }]);
  }
  const tenant: TenantIds = { applicationId: form.applicationId, environmentId: form.environmentId };
  return withTx(ctx, async (tx) => {
    let lines: LineItemInput[] = items.map((i) => ({
      name: i.name,
      sku: i.sku ?? null,
      referenceId: i.referenceId ?? null,
      quantity: i.quantity,
      unitPrice: null,
      targetUnitPrice: i.targetUnitPrice ?? null,
      note: i.note ?? null,
      description: null,
      type: "product",
      optional: false,
      qtyEditable: false,
    }));
    let cartId: string | null = null;
    let taxCountry: string | null = null;
    if (input.cartId !== undefined) {
      const cart = await loadCartForCheckout(tx, input.cartId, tenant).catch((e) => {
        throw e instanceof DomainError && e.status === 404 ? errors.notFound("Cart") : e;
      });
      cartId = cart.id;
      taxCountry = cartCountry(cart);
      lines = [...lines, ...linesFromCart(cart.lineItems)];
    }
    if (lines.length === 0 && !input.message) throw errors.validation([{ path: ["items"], message: "send items or a message (at least one is required)" }]);
    if (lines.length > MAX_QUOTE_ITEMS) throw errors.validation([{ path: ["items"], message: `at most ${MAX_QUOTE_ITEMS} lines, the cart's included` }]);
    const eventTenant = await tenantOf(tx, tenant);
    const app = await tx.db.application.findUniqueOrThrow({ where: { id: tenant.applicationId }, select: { currency: true } });
    const id = await insertQuote(
      tx,
      eventTenant,
      {
        status: "requested",
        source: "request_form",
        customerEmail: input.email,
        companyName: input.companyName,
        buyerReference: input.buyerReference,
        requestFormId: form.id,
        cartId,
        revision: { ...EMPTY_REVISION, taxCountry },
        items: lines,
        firstComment: input.message ? { body: input.message, authorType: "buyer", authorName: input.name ?? input.companyName ?? input.email } : null,
      },
      { actorType: "buyer" },
      app.currency,
    );
    const full = (await findQuote(tx, tenant, id))!;
    if (full.customerId) await fillCustomerContact(tx, full.customerId, input);
    const ev = await recordEvent(tx, eventTenant, "quote.requested", quoteEventData(full, { source: "request_form", requestFormId: form.id }));
    queueQuoteEmails(tx, full, ["customer.quote_request_received", "admin.quote_requested"], ev.id);
    return { number: full.number };
  });
}

/** The buyer's name and phone onto their customer, each only where the customer has none (a form never overwrites). */
async function fillCustomerContact(tx: Ctx, customerId: string, input: { name?: string | null; phone?: string | null }) {
  const now = tx.clock.now();
  if (input.name) await tx.db.customer.updateMany({ where: { id: customerId, OR: [{ name: null }, { name: "" }] }, data: { name: input.name, updatedAt: now } });
  if (input.phone) await tx.db.customer.updateMany({ where: { id: customerId, OR: [{ phone: null }, { phone: "" }] }, data: { phone: input.phone, updatedAt: now } });
}

// ---- a cart's request ----------------------------------------------------------------------------------------

export const cartRequestInput = z.strictObject({
  buyerReference: clearable(200),
  /** the buyer's note: the first shared comment */
  note: clearable(5_000),
  /** needed when the cart has neither a linked customer with an email nor customerEmail */
  customerEmail: emailSchema.optional(),
});

/** POST /carts/{cartId}/request-quote: a quote request from the cart's lines; the cart itself is unchanged. */
export async function requestQuoteFromCart(ctx: Ctx, cartId: string, body: unknown) {
  const t = writeTenant(ctx);
  const input = parseInput(cartRequestInput, body ?? {});
  return withTx(ctx, async (tx) => {
    const cart = await loadCartForCheckout(tx, cartId, t);
    if (cart.lineItems.length === 0 && !input.note) throw errors.validation([{ path: ["cartId"], message: "the cart has no lines; add lines or send a note" }]);
    const email = input.customerEmail ?? cart.customer?.email ?? cart.customerEmail;
    if (!email) throw errors.validation([{ path: ["customerEmail"], message: "the cart has no buyer email; send customerEmail or set it on the cart" }]);
    const eventTenant = principalEventTenant(tx);
    const id = await insertQuote(
      tx,
      eventTenant,
      {
        status: "requested",
        source: "cart",
        customerEmail: email,
        buyerReference: input.buyerReference,
        cartId: cart.id,
        revision: { ...EMPTY_REVISION, taxCountry: cartCountry(cart) },
        items: linesFromCart(cart.lineItems),
        firstComment: input.note ? { body: input.note, authorType: "buyer", authorName: email } : null,
      },
      actorOf(tx.principal),
      cart.currency,
    );
    const full = (await findQuote(tx, t, id))!;
    const ev = await recordEvent(tx, eventTenant, "quote.requested", quoteEventData(full, { source: "cart", cartId: cart.id }));
    queueQuoteEmails(tx, full, ["customer.quote_request_received", "admin.quote_requested"], ev.id);
    return quoteView(tx, full);
  });
}
