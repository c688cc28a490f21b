// Native carts (commerce.md parts 2 to 4): create, read, update, shipping selection and tax lines. Line items
// are in cart-items.service.ts, the views and derived totals in cart.view.ts.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { Prisma, type Cart, type CartLineItem } from "../generated/prisma/client";
import { type Expression, expressionBuilder, type RawBuilder, type SqlBool, sql } from "kysely";
import type { DB } from "../db/sql";
import type { TaxLine } from "../documents/tax-lines";
import { findCustomer } from "../customers/customers.service";
import { emailSchema } from "../shared/email";
import { announce, newEvent, outboxOf, principalEventTenant, recordEvent } from "../events/events.service";
import { outboxRows, outboxShape, outboxSlots, writingOutboxRows } from "../events/outbox";
import { runTemplate, slotsOf } from "../db/template";
import { requireScope, requireTenant } from "../shared/guards";
import { type Address, addressSchema, canonicalAddress, metadataSchema } from "../shared/address";
import { type Ctx, withTx } from "../shared/context";
import { DomainError, errors, parseInput } from "../shared/errors";
import { amount, assertSumsFit, currencyCode, MAX_AMOUNT, sum } from "../shared/money";
import { cartErrors } from "./carts.errors";
import { lockEditableCart, type TenantIds } from "./carts.machine";
import { isUuid } from "../shared/ids";
import { type Arithmetic, type CartParts, type CartTotals, cartTotals, NUMBERS, selectedShippingOf, taxLinesOf, totalsOf } from "./cart.view";

// ---- shapes of the JSON columns ---------------------------------------------------------------------

/** A shipping rate as merchants configure it (built-in provider) or select it on a cart. */
export interface ShippingRate {
  methodId: string;
  displayName: string;
  rateAmount: number;
  carrier: string | null;
  serviceCode: string | null;
  estimatedDeliveryDays: number | null;
}

/** The rate chosen for a cart, in the cart's currency. */
export type SelectedShipping = ShippingRate & { currency: string };

/** A cart with its lines and, when linked, its customer's email (which wins over `customerEmail` on reads). */
export type CartWithItems = Cart & { lineItems: CartLineItem[]; customer?: { id: string; email: string | null } | null };

// ---- inputs -------------------------------------------------------------------------------------------

const currencyInput = z.string().trim().toUpperCase().pipe(currencyCode);
/** A customer reference: the UUID with or without the `cus_` prefix (decisions.md part 1). */
const customerRef = z
  .string()
  .trim()
  .transform((s) => (s.startsWith("cus_") ? s.slice(4) : s))
  .pipe(z.uuid("must be a customer id"));
const shortText = (max: number) => z.string().trim().min(1).max(max);

export const createCartInput = z.strictObject({
  /** Optional: the credential pins one application; when sent it must be that one. */
  applicationId: z.uuid().optional(),
  customerId: customerRef.nullish(),
  customerEmail: emailSchema.nullish(),
  currency: currencyInput.optional(),
  metadata: metadataSchema.optional(),
});

export const updateCartInput = z.strictObject({
  customerId: customerRef.nullable().optional(),
  customerEmail: emailSchema.nullable().optional(),
  shippingAddress: addressSchema.nullable().optional(),
  billingAddress: addressSchema.nullable().optional(),
  notes: z.string().max(5_000).nullable().optional(),
  metadata: metadataSchema.optional(),
});

/** The fields of a shipping rate on input (cart selection, provider settings). */
export const shippingRateFields = {
  methodId: shortText(200),
  displayName: shortText(200),
  rateAmount: amount,
  carrier: shortText(100).nullish(),
  serviceCode: shortText(100).nullish(),
  estimatedDeliveryDays: z.number().int().min(0).max(365).nullish(),
};

/** A parsed rate input as stored: absent optional fields become null. */
export function toShippingRate(r: z.infer<z.ZodObject<typeof shippingRateFields>>): ShippingRate {
  return {
    methodId: r.methodId,
    displayName: r.displayName,
    rateAmount: r.rateAmount,
    carrier: r.carrier ?? null,
    serviceCode: r.serviceCode ?? null,
    estimatedDeliveryDays: r.estimatedDeliveryDays ?? null,
  };
}

export const selectShippingInput = z.strictObject({ ...shippingRateFields, currency: currencyInput.optional() });

const taxLineInput = z.strictObject({
  name: shortText(200),
  amount,
  rateBps: z.number().int().min(0).max(10_000).nullish(),
  jurisdiction: shortText(100).nullish(),
});
export const replaceTaxLinesInput = z.strictObject({ lines: z.array(taxLineInput).max(100) });

// ---- loading -------------------------------------------------------------------------------------------

function tenantIds(ctx: Ctx): TenantIds {
  const t = requireTenant(ctx);
  return { applicationId: t.applicationId, environmentId: t.environmentId };
}

/**
 * The tenant's cart with its lines (oldest first) and linked customer, or null: one raw statement (the lines and the
 * customer as JSON built by PostgreSQL), the shape Prisma's include returned (test/cart-read.e2e holds them equal).
 * Read on every cart command's answer and by checkout session creation; Prisma's include cost several times the CPU.
 */
export async function findCart(ctx: Ctx, tenant: TenantIds, id: string): Promise<CartWithItems | null>;
export async function findCart(ctx: Ctx, tenant: TenantIds, id: string, opts: { connectorKinds: true }): Promise<(CartWithItems & { connectorKinds: string[] }) | null>;
export async function findCart(ctx: Ctx, tenant: TenantIds, id: string, opts: { connectorKinds?: boolean } = {}): Promise<CartWithItems | null> {
  if (!isUuid(id)) return null;
  const values = { id, applicationId: tenant.applicationId, environmentId: tenant.environmentId };
  const { rows } = await runTemplate(ctx.sql, `cart.read.${opts.connectorKinds ? "kinds" : "plain"}`, values, (p) =>
    ctx.sql
      .selectFrom("Cart as c")
      .leftJoin("Customer as cu", (j) => j.onRef("cu.id", "=", "c.customerId").onRef("cu.applicationId", "=", "c.applicationId").onRef("cu.environmentId", "=", "c.environmentId"))
      .select(CART_COLUMNS.map((k) => `c.${k}` as const))
      .select((eb) => [
        eb.case().when("cu.id", "is", null).then(null).else(eb.fn<{ id: string; email: string | null }>("json_build_object", [sql.lit("id"), "cu.id", sql.lit("email"), "cu.email"])).end().as("customer"),
        cartLinesJson(eb.ref("c.id")).as("lineItems"),
      ])
      // connectorKinds: the kinds of the tenant's active payment connections, for checkout session creation (in the
      // same statement, so that creating a session reads once)
      .$if(Boolean(opts.connectorKinds), (q) =>
        q.select((eb) =>
          sql<string[]>`ARRAY(${eb.selectFrom("Connector as k").select("k.kind").distinct().whereRef("k.applicationId", "=", "c.applicationId").whereRef("k.environmentId", "=", "c.environmentId").where("k.status", "=", "active")})`.as("connectorKinds"),
        ),
      )
      .where("c.id", "=", p.id)
      .where("c.applicationId", "=", p.applicationId)
      .where("c.environmentId", "=", p.environmentId),
  );
  const row = rows[0];
  if (!row) return null;
  return { ...(row as unknown as Cart), lineItems: shapeCartLines(row.lineItems), customer: row.customer } as CartWithItems;
}

/** Every column of a cart row, named (no `*`: src/db/prepared.ts). */
export const CART_COLUMNS = Object.values(Prisma.CartScalarFieldEnum) as (keyof DB["Cart"] & string)[];

/** A cart's lines as one JSON array, oldest first (the order of every cart read). */
export function cartLinesJson(cartId: Expression<string>): RawBuilder<unknown[]> {
  const l = expressionBuilder<{ l: DB["CartLineItem"] }, "l">();
  return sql<unknown[]>`(SELECT coalesce(json_agg(l ORDER BY ${l.ref("l.createdAt")}, ${l.ref("l.id")}), '[]'::json) FROM ${sql.table("CartLineItem")} l WHERE ${l.ref("l.cartId")} = ${cartId})`;
}

/** json_agg carries a timestamp as text: back to a Date, as Prisma returns it. */
export function shapeCartLines(lines: unknown[]): CartLineItem[] {
  return (lines as (CartLineItem & { createdAt: string })[]).map((l) => ({ ...l, createdAt: new Date(l.createdAt) }));
}

/**
 * The cart total ceiling: these totals must each stay within MAX_AMOUNT (they are stored and served as 32-bit
 * integers). Checked on numbers (assertTotalsFit) and, in the line add's statement, in SQL (cartFitsSql).
 */
const CEILED_TOTALS = ["subtotal", "taxTotal", "total"] as const;

/** 422 when any of a cart's totals would pass MAX_AMOUNT. */
export function assertTotalsFit(totals: CartTotals) {
  assertSumsFit(CEILED_TOTALS.map((k) => ({ path: [k], value: totals[k], what: `The cart's ${k}` })));
}

const SQL_ARITHMETIC: Arithmetic<Expression<number>> = {
  plus: (...terms) => sql<number>`(${sql.join(terms.map((t) => sql`(${t})`), sql` + `)})`,
  minus: (a, b) => sql<number>`((${a}) - (${b}))`,
};

/** The ceiling as a SQL condition on a cart's parts given as SQL: true while every ceiled total fits. */
export function cartFitsSql(parts: CartParts<Expression<number>>): RawBuilder<SqlBool> {
  const totals = totalsOf(parts, SQL_ARITHMETIC);
  return sql<SqlBool>`${sql.join(CEILED_TOTALS.map((k) => sql`${totals[k]} <= ${MAX_AMOUNT}`), sql` AND `)}`;
}

/** After a line changes (inside its transaction): the cart's totals, summed in SQL, must still fit. */
export async function assertCartTotalsFit(ctx: Ctx, cartId: string) {
  const row = await ctx.sql
    .selectFrom("Cart as c")
    .leftJoin("CartLineItem as l", "l.cartId", "c.id")
    .select((eb) => [
      sql<number>`COALESCE(SUM(${eb.ref("l.unitPrice")}::bigint * ${eb.ref("l.quantity")}), 0)`.as("subtotal"),
      sql<number>`COALESCE(SUM(${eb.ref("l.discountAmount")}), 0)::bigint`.as("discount"),
      sql<number>`COALESCE(SUM(${eb.ref("l.taxAmount")}), 0)::bigint`.as("tax"),
      "c.selectedShipping",
      "c.taxLines",
    ])
    .where("c.id", "=", cartId)
    .groupBy("c.id")
    .executeTakeFirst();
  if (!row) return;
  assertCartFits(Number(row.subtotal), Number(row.discount), Number(row.tax), row.selectedShipping, row.taxLines);
}

/** The same check from sums already at hand: the lines' subtotal, discounts and taxes, and the cart's charges. */
export function assertCartFits(subtotal: number, discount: number, lineTax: number, selectedShipping: unknown, taxLines: unknown) {
  const shipping = (selectedShipping as SelectedShipping | null)?.rateAmount ?? 0;
  const tax = lineTax + sum(((taxLines as TaxLine[] | null) ?? []).map((t) => t.amount));
  assertTotalsFit(totalsOf({ subtotal, discount, shipping, tax }, NUMBERS));
}

async function loadCart(ctx: Ctx, tenant: TenantIds, id: string): Promise<CartWithItems> {
  const cart = await findCart(ctx, tenant, id);
  if (!cart) throw cartErrors.notFound();
  return cart;
}

/** loadCartForCheckout with the kinds of the tenant's active payment connections, read in the same statement. */
export async function loadCartWithConnectorKinds(ctx: Ctx, cartId: string): Promise<CartWithItems & { connectorKinds: string[] }> {
  const cart = await findCart(ctx, tenantIds(ctx), cartId, { connectorKinds: true });
  if (!cart) throw cartErrors.notFound();
  return cart;
}

/**
 * For checkout: the tenant's cart with its line items (404 cart_not_found otherwise), whatever its status.
 * `tenant` defaults to the calling credential's; pass it from a buyer route that has no credential.
 */
export async function loadCartForCheckout(ctx: Ctx, cartId: string, tenant?: TenantIds): Promise<CartWithItems> {
  return loadCart(ctx, tenant ?? tenantIds(ctx), cartId);
}

async function requireCustomer(ctx: Ctx, tenant: TenantIds, id: string) {
  const customer = await findCustomer(ctx, tenant, id);
  if (!customer) throw new DomainError("not_found", "Customer not found", { field: "customerId" });
  return customer;
}

/** A Prisma write value for a nullable JSON column: null clears it (SQL NULL). */
export function jsonOrNull<T>(value: T | null): T | typeof Prisma.DbNull {
  return value === null ? Prisma.DbNull : value;
}

/** Address fields of a PATCH or a calculation, as Prisma data; only the keys that were sent. */
export function addressData(input: { shippingAddress?: Address | null; billingAddress?: Address | null }) {
  const data: Prisma.CartUpdateManyMutationInput = {};
  if (input.shippingAddress !== undefined) data.shippingAddress = jsonOrNull(input.shippingAddress && canonicalAddress(input.shippingAddress));
  if (input.billingAddress !== undefined) data.billingAddress = jsonOrNull(input.billingAddress && canonicalAddress(input.billingAddress));
  return data;
}

// ---- commands ------------------------------------------------------------------------------------------

export async function createCart(ctx: Ctx, body: unknown) {
  const p = requireScope(ctx, "carts:write");
  const input = parseInput(createCartInput, body);
  const t = tenantIds(ctx);
  // A key is pinned to one application: any other id answers like an unknown one.
  if (input.applicationId !== undefined && input.applicationId !== t.applicationId) throw errors.notFound("Application");
  const applicationCurrency = p.application!.currency;
  if (input.currency && input.currency !== applicationCurrency) throw cartErrors.currencyMismatch(input.currency, applicationCurrency);
  // One statement, no transaction: the cart and its cart.created event (writingOutbox); announced once written.
  const customer = input.customerId ? await requireCustomer(ctx, t, input.customerId) : null;
  const id = randomUUID();
  const at = ctx.clock.now();
  const customerEmail = input.customerEmail ?? null;
  const created = newEvent(ctx, principalEventTenant(ctx), "cart.created", { cartId: id, currency: applicationCurrency, customerId: input.customerId ?? null, customerEmail });
  const values = {
    cart: { id, applicationId: t.applicationId, environmentId: t.environmentId, currency: applicationCurrency, customerId: input.customerId ?? null, customerEmail, metadata: JSON.stringify(input.metadata ?? {}), createdAt: at, updatedAt: at },
    ox: outboxRows(outboxOf(ctx, [created])),
  };
  const { rows } = await runTemplate(ctx.sql, `cart.create.${outboxShape(values.ox)}`, values, (_p, shape) =>
    writingOutboxRows(ctx.sql, outboxSlots(shape.ox, "ox")).insertInto("Cart").values(slotsOf(shape.cart, "cart")).returning(CART_COLUMNS),
  );
  const cart = rows[0];
  announce(ctx, [created]);
  // A new cart has no lines: what was written is what a read would return (no read-back).
  return { ...(cart as unknown as Cart), lineItems: [], customer: customer && { id: customer.id, email: customer.email } } as CartWithItems;
}

export async function getCart(ctx: Ctx, id: string) {
  requireScope(ctx, "carts:read");
  return loadCart(ctx, tenantIds(ctx), id);
}

export async function updateCart(ctx: Ctx, id: string, body: unknown) {
  requireScope(ctx, "carts:write");
  const input = parseInput(updateCartInput, body ?? {});
  const t = tenantIds(ctx);
  return withTx(ctx, async (tx) => {
    await lockEditableCart(tx, t, id);
    if (input.customerId) await requireCustomer(tx, t, input.customerId);
    const changed = Object.keys(input).filter((k) => input[k as keyof typeof input] !== undefined);
    if (changed.length) {
      await tx.db.cart.update({
        where: { id },
        data: {
          ...(input.customerId !== undefined ? { customerId: input.customerId } : {}),
          ...(input.customerEmail !== undefined ? { customerEmail: input.customerEmail } : {}),
          ...(input.notes !== undefined ? { notes: input.notes } : {}),
          ...(input.metadata !== undefined ? { metadata: input.metadata as object } : {}),
          ...addressData(input),
        },
      });
      await recordEvent(tx, principalEventTenant(tx), "cart.updated", { cartId: id, changed });
    }
    return loadCart(tx, t, id);
  });
}

export async function selectShipping(ctx: Ctx, id: string, body: unknown) {
  requireScope(ctx, "carts:write");
  const input = parseInput(selectShippingInput, body);
  const t = tenantIds(ctx);
  return withTx(ctx, async (tx) => {
    await lockEditableCart(tx, t, id);
    const cart = await loadCart(tx, t, id);
    if (input.currency && input.currency !== cart.currency) throw cartErrors.shippingCurrencyMismatch(input.currency, cart.currency);
    const selected: SelectedShipping = { ...toShippingRate(input), currency: cart.currency };
    assertTotalsFit(cartTotals({ lineItems: cart.lineItems, selectedShipping: selected, taxLines: taxLinesOf(cart) }));
    await tx.db.cart.update({ where: { id }, data: { selectedShipping: selected as object } });
    await recordEvent(tx, principalEventTenant(tx), "cart.shipping_selected", { cartId: id, selectedShipping: selected });
    return { ...cart, selectedShipping: selected as object };
  });
}

/** Clears the selection; clearing a cart with none is a no-op that emits nothing. */
export async function clearShipping(ctx: Ctx, id: string) {
  requireScope(ctx, "carts:write");
  const t = tenantIds(ctx);
  return withTx(ctx, async (tx) => {
    await lockEditableCart(tx, t, id);
    const cart = await loadCart(tx, t, id);
    const previous = selectedShippingOf(cart);
    if (!previous) return cart;
    await tx.db.cart.update({ where: { id }, data: { selectedShipping: Prisma.DbNull } });
    await recordEvent(tx, principalEventTenant(tx), "cart.shipping_cleared", { cartId: id, previousMethodId: previous.methodId });
    return { ...cart, selectedShipping: null };
  });
}

export async function replaceTaxLines(ctx: Ctx, id: string, body: unknown) {
  requireScope(ctx, "carts:write");
  const input = parseInput(replaceTaxLinesInput, body);
  const t = tenantIds(ctx);
  const lines: TaxLine[] = input.lines.map((l) => ({ name: l.name, amount: l.amount, rateBps: l.rateBps ?? null, jurisdiction: l.jurisdiction ?? null }));
  return withTx(ctx, async (tx) => {
    await lockEditableCart(tx, t, id);
    await tx.db.cart.update({ where: { id }, data: { taxLines: lines as unknown as object } });
    const cart = await loadCart(tx, t, id);
    assertTotalsFit(cartTotals({ lineItems: cart.lineItems, selectedShipping: selectedShippingOf(cart), taxLines: lines }));
    await recordEvent(tx, principalEventTenant(tx), "cart.tax_recomputed", {
      cartId: id,
      source: "manual",
      taxLines: lines,
      taxTotal: cartTotals({ lineItems: cart.lineItems, selectedShipping: selectedShippingOf(cart), taxLines: lines }).taxTotal,
    });
    return cart;
  });
}
