// Promotion codes: the merchant's discounts (create, list, read, change), applying one to a cart and removing it,
// and the redemption counted when a checkout creates the order (race-safe: one conditional UPDATE).
import { sql } from "kysely";
import { z } from "zod";
import { type CheckoutSession, Prisma, type Discount } from "../generated/prisma/client";
import { cartErrors } from "../carts/carts.errors";
import { lockEditableCart, type TenantIds } from "../carts/carts.machine";
import { cartView, codeDiscountBase } from "../carts/cart.view";
import { type CartWithItems, findCart } from "../carts/carts.service";
import { type EventTenant, principalEventTenant, recordEvent } from "../events/events.service";
import { requireScope, requireTenant } from "../shared/guards";
import { type Ctx, isUniqueViolation, withTx } from "../shared/context";
import { DomainError, errors, type Issue, parseInput } from "../shared/errors";
import { amount, currencyCode, MAX_AMOUNT } from "../shared/money";
import { keyset, pageQuery, toPage } from "../shared/pagination";
import { type AppliedDiscountSnapshot, discountAmountOn, snapshotOf } from "../carts/applied-discount";
import { isUuid } from "../shared/ids";

const DISCOUNT_TYPES = ["percent", "fixed"] as const;
/** Why a code does not apply (details.reason of 422 discount_invalid). */
type InvalidReason = "unknown_code" | "inactive" | "not_started" | "expired" | "over_limit" | "below_minimum" | "currency_mismatch";

const MAX_INT = 2_147_483_647;
const codeInput = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, "letters, digits, '-' and '_' only, starting with a letter or digit");
const instant = z.iso.datetime({ offset: true });
const currencyInput = z.string().trim().toUpperCase().pipe(currencyCode);

const fields = {
  code: codeInput,
  type: z.enum(DISCOUNT_TYPES),
  /** percent: whole percent 1..100; fixed: minor units of `currency` */
  value: z.number().int().min(1).max(MAX_AMOUNT),
  currency: currencyInput.nullish(),
  startsAt: instant.nullish(),
  endsAt: instant.nullish(),
  maxRedemptions: z.number().int().min(1).max(MAX_INT).nullish(),
  minSubtotal: amount.nullish(),
  active: z.boolean(),
};

export const createDiscountInput = z.strictObject({ ...fields, active: fields.active.default(true) });
export const updateDiscountInput = z.strictObject({
  code: fields.code.optional(),
  type: fields.type.optional(),
  value: fields.value.optional(),
  currency: fields.currency,
  startsAt: fields.startsAt,
  endsAt: fields.endsAt,
  maxRedemptions: fields.maxRedemptions,
  minSubtotal: fields.minSubtotal,
  active: fields.active.optional(),
});
export const applyDiscountInput = z.strictObject({ code: z.string().trim().min(1).max(100) });
export const discountListQuery = pageQuery.extend({ active: z.enum(["true", "false"]).optional(), code: z.string().trim().min(1).max(100).optional() });

/** Codes compare case-insensitively: the unique key per application + environment. */
const codeKeyOf = (code: string) => code.trim().toLowerCase();

export function discountView(d: Discount) {
  return {
    id: d.id,
    code: d.code,
    type: d.type as (typeof DISCOUNT_TYPES)[number],
    value: d.value,
    currency: d.currency,
    startsAt: d.startsAt?.toISOString() ?? null,
    endsAt: d.endsAt?.toISOString() ?? null,
    maxRedemptions: d.maxRedemptions,
    redemptionCount: d.redemptionCount,
    minSubtotal: d.minSubtotal,
    active: d.active,
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
  };
}

const discountErrors = {
  codeTaken: (code: string) =>
    new DomainError("discount_code_taken", `A discount with the code "${code}" already exists (codes are case-insensitive)`, { field: "code", code }),
  invalid: (reason: InvalidReason, code: string, extra: Record<string, unknown> = {}) =>
    new DomainError("discount_invalid", `Discount code "${code}" cannot be used: ${REASON_TEXT[reason]}`, { reason, code, ...extra }),
  notFound: () => errors.notFound("Discount"),
};

const REASON_TEXT: Record<InvalidReason, string> = {
  unknown_code: "no such code",
  inactive: "the code is not active",
  not_started: "the code is not valid yet",
  expired: "the code has expired",
  over_limit: "the code has been redeemed the maximum number of times",
  below_minimum: "the cart's subtotal is below the code's minimum",
  currency_mismatch: "the code is for another currency",
};

function tenantIds(ctx: Ctx): TenantIds {
  const t = requireTenant(ctx);
  return { applicationId: t.applicationId, environmentId: t.environmentId };
}

type DiscountShape = Pick<Discount, "type" | "value" | "currency" | "startsAt" | "endsAt">;

/** Rules across fields: percent 1..100; a fixed amount needs a currency; a currency is the application's; start before end. */
function checkDiscount(d: DiscountShape, applicationCurrency: string) {
  const issues: Issue[] = [];
  if (d.type === "percent" && d.value > 100) issues.push({ path: ["value"], message: "a percent discount is 1 to 100" });
  if (d.type === "fixed" && !d.currency) issues.push({ path: ["currency"], message: "required for a fixed discount" });
  if (d.currency && d.currency !== applicationCurrency) issues.push({ path: ["currency"], message: `must be the application's currency ${applicationCurrency}` });
  if (d.startsAt && d.endsAt && d.endsAt <= d.startsAt) issues.push({ path: ["endsAt"], message: "must be after startsAt" });
  if (issues.length) throw errors.validation(issues);
}

const dateOrNull = (s: string | null | undefined) => (s === undefined ? undefined : s === null ? null : new Date(s));

export async function createDiscount(ctx: Ctx, body: unknown) {
  const p = requireScope(ctx, "discounts:write");
  const input = parseInput(createDiscountInput, body);
  const t = tenantIds(ctx);
  const data = {
    ...t,
    code: input.code,
    codeKey: codeKeyOf(input.code),
    type: input.type,
    value: input.value,
    currency: input.currency ?? null,
    startsAt: dateOrNull(input.startsAt) ?? null,
    endsAt: dateOrNull(input.endsAt) ?? null,
    maxRedemptions: input.maxRedemptions ?? null,
    minSubtotal: input.minSubtotal ?? null,
    active: input.active,
    createdAt: ctx.clock.now(),
    updatedAt: ctx.clock.now(),
  };
  checkDiscount(data, p.application!.currency);
  try {
    return await ctx.db.discount.create({ data });
  } catch (e) {
    if (isUniqueViolation(e)) throw discountErrors.codeTaken(input.code);
    throw e;
  }
}

async function findDiscount(ctx: Ctx, t: TenantIds, id: string) {
  const d = isUuid(id) ? await ctx.db.discount.findFirst({ where: { id, applicationId: t.applicationId, environmentId: t.environmentId } }) : null;
  if (!d) throw discountErrors.notFound();
  return d;
}

export async function getDiscount(ctx: Ctx, id: string) {
  requireScope(ctx, "discounts:read");
  return findDiscount(ctx, tenantIds(ctx), id);
}

export async function listDiscounts(ctx: Ctx, query: unknown) {
  requireScope(ctx, "discounts:read");
  const t = tenantIds(ctx);
  const q = parseInput(discountListQuery, query ?? {}, ["query"]);
  const ks = keyset(q);
  const rows = await ctx.db.discount.findMany({
    where: {
      applicationId: t.applicationId,
      environmentId: t.environmentId,
      ...(q.active ? { active: q.active === "true" } : {}),
      ...(q.code ? { codeKey: codeKeyOf(q.code) } : {}),
      ...ks.where,
    },
    orderBy: ks.orderBy,
    take: ks.take,
  });
  return toPage(rows, q);
}

/** Absent fields are unchanged; null clears currency, dates, maxRedemptions or minSubtotal. The rules hold on the result. */
export async function updateDiscount(ctx: Ctx, id: string, body: unknown) {
  const p = requireScope(ctx, "discounts:write");
  const input = parseInput(updateDiscountInput, body ?? {});
  const t = tenantIds(ctx);
  return withTx(ctx, async (tx) => {
    const d = await findDiscount(tx, t, id);
    const data: Prisma.DiscountUpdateInput = {};
    if (input.code !== undefined) Object.assign(data, { code: input.code, codeKey: codeKeyOf(input.code) });
    if (input.type !== undefined) data.type = input.type;
    if (input.value !== undefined) data.value = input.value;
    if (input.currency !== undefined) data.currency = input.currency;
    if (input.startsAt !== undefined) data.startsAt = dateOrNull(input.startsAt);
    if (input.endsAt !== undefined) data.endsAt = dateOrNull(input.endsAt);
    if (input.maxRedemptions !== undefined) data.maxRedemptions = input.maxRedemptions;
    if (input.minSubtotal !== undefined) data.minSubtotal = input.minSubtotal;
    if (input.active !== undefined) data.active = input.active;
    if (Object.keys(data).length === 0) return d;
    checkDiscount({ ...d, ...(data as Partial<DiscountShape>) }, p.application!.currency);
    try {
      return await tx.db.discount.update({ where: { id: d.id }, data: { ...data, updatedAt: tx.clock.now() } });
    } catch (e) {
      if (isUniqueViolation(e)) throw discountErrors.codeTaken(input.code ?? d.code);
      throw e;
    }
  });
}

// ---- carts ---------------------------------------------------------------------------------------------

/** Why `d` cannot go on a cart with this currency and subtotal now, or null when it can. */
function invalidReason(d: Discount | null, cart: { currency: string; subtotal: number }, now: Date): InvalidReason | null {
  if (!d) return "unknown_code";
  if (!d.active) return "inactive";
  if (d.startsAt && d.startsAt > now) return "not_started";
  if (d.endsAt && d.endsAt <= now) return "expired";
  if (d.maxRedemptions !== null && d.redemptionCount >= d.maxRedemptions) return "over_limit";
  if (d.currency && d.currency !== cart.currency) return "currency_mismatch";
  if (d.minSubtotal !== null && cart.subtotal < d.minSubtotal) return "below_minimum";
  return null;
}

function reasonDetails(reason: InvalidReason, d: Discount | null, subtotal: number): Record<string, unknown> {
  if (!d) return {};
  switch (reason) {
    case "not_started":
      return { startsAt: d.startsAt!.toISOString() };
    case "expired":
      return { endsAt: d.endsAt!.toISOString() };
    case "over_limit":
      return { maxRedemptions: d.maxRedemptions };
    case "below_minimum":
      return { minSubtotal: d.minSubtotal, subtotal };
    case "currency_mismatch":
      return { currency: d.currency };
    default:
      return {};
  }
}

function snapshot(d: Discount): AppliedDiscountSnapshot {
  return { discountId: d.id, code: d.code, type: d.type as AppliedDiscountSnapshot["type"], value: d.value, currency: d.currency, minSubtotal: d.minSubtotal };
}

/**
 * Puts the code on a cart already loaded (and locked by the caller when it must be open): validated now (422
 * discount_invalid with details.reason), replacing any other code. Emits cart.discount_applied and discount.applied.
 * Shared by POST /carts/{id}/discount and a checkout session's `discountCode`.
 */
export async function applyCodeToCart(tx: Ctx, t: TenantIds, eventTenant: EventTenant, cart: CartWithItems, code: string, source: "cart" | "checkout_session") {
  const d = await tx.db.discount.findUnique({ where: { applicationId_environmentId_codeKey: { applicationId: t.applicationId, environmentId: t.environmentId, codeKey: codeKeyOf(code) } } });
  const subtotal = cartView(cart).subtotal;
  const reason = invalidReason(d, { currency: cart.currency, subtotal }, tx.clock.now());
  if (reason) throw discountErrors.invalid(reason, code.trim(), reasonDetails(reason, d, subtotal));
  const applied = snapshot(d!);
  const previous = snapshotOf(cart.appliedDiscount);
  await tx.db.cart.update({ where: { id: cart.id }, data: { appliedDiscount: applied as object } });
  const amount = discountAmountOn(applied, codeDiscountBase(cart.lineItems));
  const data = { cartId: cart.id, discountId: d!.id, code: d!.code, type: d!.type, value: d!.value, amount, source, ...(previous ? { replacedCode: previous.code } : {}) };
  await recordEvent(tx, eventTenant, "cart.discount_applied", data);
  await recordEvent(tx, eventTenant, "discount.applied", data);
  return { ...cart, appliedDiscount: applied as object };
}

async function loadCart(ctx: Ctx, t: TenantIds, id: string) {
  const cart = await findCart(ctx, t, id);
  if (!cart) throw cartErrors.notFound();
  return cart;
}

/** POST /carts/{id}/discount {code}: the cart with the code applied. */
export async function applyCartDiscount(ctx: Ctx, cartId: string, body: unknown) {
  requireScope(ctx, "carts:write");
  const input = parseInput(applyDiscountInput, body);
  const t = tenantIds(ctx);
  return withTx(ctx, async (tx) => {
    await lockEditableCart(tx, t, cartId);
    return applyCodeToCart(tx, t, principalEventTenant(tx), await loadCart(tx, t, cartId), input.code, "cart");
  });
}

/** DELETE /carts/{id}/discount: the cart without its code; removing none is a no-op that emits nothing. */
export async function removeCartDiscount(ctx: Ctx, cartId: string) {
  requireScope(ctx, "carts:write");
  const t = tenantIds(ctx);
  return withTx(ctx, async (tx) => {
    await lockEditableCart(tx, t, cartId);
    const cart = await loadCart(tx, t, cartId);
    const previous = snapshotOf(cart.appliedDiscount);
    if (!previous) return cart;
    await tx.db.cart.update({ where: { id: cartId }, data: { appliedDiscount: Prisma.DbNull } });
    await discountRemovedEvents(tx, principalEventTenant(tx), cartId, previous, "removed");
    return { ...cart, appliedDiscount: null };
  });
}

async function discountRemovedEvents(tx: Ctx, eventTenant: EventTenant, cartId: string, previous: AppliedDiscountSnapshot, reason: "removed" | "below_minimum") {
  const data = { cartId, discountId: previous.discountId, code: previous.code, reason };
  await recordEvent(tx, eventTenant, "cart.discount_removed", data);
  await recordEvent(tx, eventTenant, "discount.removed", data);
}

/**
 * After a line changes or goes (inside its transaction, under the cart's lock): a code whose minSubtotal the cart
 * no longer reaches comes off (cart.discount_removed, reason below_minimum). One statement; nothing when no code.
 */
export async function dropDiscountBelowMinimum(tx: Ctx, cartId: string) {
  const discount = sql.ref("appliedDiscount");
  const row = await tx.sql
    .with("c", (db) =>
      db
        .selectFrom("Cart")
        .select(["id", "appliedDiscount as previous"])
        .where("id", "=", cartId)
        .where("appliedDiscount", "is not", null)
        .where(sql`jsonb_typeof(${discount}->'minSubtotal')`, "=", "number")
        .where((eb) =>
          eb(
            sql`(${discount}->>'minSubtotal')::bigint`,
            ">",
            eb.selectFrom("CartLineItem").select(sql<number>`COALESCE(SUM(${sql.ref("unitPrice")}::bigint * ${sql.ref("quantity")}), 0)`.as("subtotal")).where("cartId", "=", cartId),
          ),
        ),
    )
    .updateTable("Cart")
    .set({ appliedDiscount: null })
    .from("c")
    .whereRef("Cart.id", "=", "c.id")
    .returning("c.previous")
    .executeTakeFirst();
  const previous = row && snapshotOf(row.previous);
  if (previous) await discountRemovedEvents(tx, principalEventTenant(tx), cartId, previous, "below_minimum");
}

// ---- redemption ------------------------------------------------------------------------------------------

/**
 * In the transaction that creates a checkout's order: counts the cart's code once (a conditional UPDATE, so under
 * any concurrency at most maxRedemptions orders get it), records the redemption (one per order) and stamps the
 * order's discountCode and discountSnapshot, in one statement. When the code stopped being valid meanwhile (limit
 * reached, deactivated, expired): 422 discount_invalid, and the caller's transaction (claim, order) rolls back
 * before any money moves.
 */
export async function redeemCartDiscount(tx: Ctx, a: { orderId: string; cart: CartWithItems }) {
  const applied = snapshotOf(a.cart.appliedDiscount);
  if (!applied) return;
  const now = tx.clock.now();
  const amount = discountAmountOn(applied, codeDiscountBase(a.cart.lineItems));
  const orderSnapshot = { discountId: applied.discountId, code: applied.code, type: applied.type, value: applied.value, amount };
  const rows = await tx.sql
    .with("d", (db) =>
      db
        .updateTable("Discount")
        .set((eb) => ({ redemptionCount: eb("redemptionCount", "+", 1), updatedAt: now }))
        .where("id", "=", applied.discountId)
        .where("applicationId", "=", a.cart.applicationId)
        .where("environmentId", "=", a.cart.environmentId)
        .where("active", "=", true)
        .where((eb) => eb.or([eb("startsAt", "is", null), eb("startsAt", "<=", now)]))
        .where((eb) => eb.or([eb("endsAt", "is", null), eb("endsAt", ">", now)]))
        .where((eb) => eb.or([eb("maxRedemptions", "is", null), eb("redemptionCount", "<", eb.ref("maxRedemptions"))]))
        .returning("id"),
    )
    .with("r", (db) =>
      db
        .insertInto("DiscountRedemption")
        .columns(["id", "discountId", "orderId", "amount", "createdAt"])
        .expression((eb) =>
          eb
            .selectFrom("d")
            .select([
              sql<string>`gen_random_uuid()`.as("id"),
              "d.id as discountId",
              eb.cast<string>(eb.val(a.orderId), "uuid").as("orderId"),
              eb.cast<number>(eb.val(amount), "integer").as("amount"),
              eb.cast<Date>(eb.val(now), "timestamp").as("createdAt"),
            ]),
        ),
    )
    .with("o", (db) =>
      db
        .updateTable("Order")
        .set({ discountCode: applied.code, discountSnapshot: JSON.stringify(orderSnapshot) })
        .where("id", "=", a.orderId)
        .where((eb) => eb.exists(eb.selectFrom("d").select("d.id"))),
    )
    .selectFrom("d")
    .select("id")
    .execute();
  if (rows.length) return;
  const d = await tx.db.discount.findUnique({ where: { id: applied.discountId } });
  const reason = invalidReason(d, { currency: a.cart.currency, subtotal: Number.MAX_SAFE_INTEGER }, now) ?? "over_limit";
  throw discountErrors.invalid(reason, applied.code, reasonDetails(reason, d, 0));
}

/** A checkout session created with `discountCode`: the code it named (already applied to its cart). */
export async function recordSessionDiscount(tx: Ctx, session: CheckoutSession, cart: CartWithItems) {
  const applied = snapshotOf(cart.appliedDiscount);
  return tx.db.checkoutSession.update({ where: { id: session.id }, data: { discountCode: applied?.code ?? null } });
}
