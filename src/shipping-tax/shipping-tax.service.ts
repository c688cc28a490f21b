// Shipping and tax (commerce.md part 4): the built-in provider's settings (flat shipping rates and a
// per-country tax table, per application + environment) and the cart calculation route.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { ShippingTaxSettings } from "../generated/prisma/client";
import { addressData, assertTotalsFit, type CartWithItems, findCart, jsonOrNull, type SelectedShipping, type ShippingRate, shippingRateFields, toShippingRate } from "../carts/carts.service";
import type { TaxLine } from "../documents/tax-lines";
import { type CartTotals, cartTotals, selectedShippingOf } from "../carts/cart.view";
import { cartErrors } from "../carts/carts.errors";
import { lockEditableCart, type TenantIds } from "../carts/carts.machine";
import { principalEventTenant, recordEvent } from "../events/events.service";
import { requireScope, requireSecretOrDashboard, requireTenant } from "../shared/guards";
import { addressSchema } from "../shared/address";
import { calendarDate } from "../shared/dates";
import { type Ctx, withTx } from "../shared/context";
import { DomainError, parseInput } from "../shared/errors";
import { stableStringify } from "../shared/json";
import { applyBps } from "../shared/money";
import { hasScope } from "../shared/scopes";

export type FlatRate = ShippingRate;
export interface TaxRate {
  rateBps: number;
  name: string | null;
}
export interface ShippingTaxConfig {
  flatRates: FlatRate[];
  taxRates: Record<string, TaxRate>;
}

const shortText = (max: number) => z.string().trim().min(1).max(max);

const flatRateInput = z.strictObject(shippingRateFields);

export const settingsInput = z.strictObject({
  flatRates: z
    .array(flatRateInput)
    .max(50)
    .superRefine((rates, ctx) => {
      const seen = new Set<string>();
      rates.forEach((r, i) => {
        if (seen.has(r.methodId)) ctx.addIssue({ code: "custom", path: [i, "methodId"], message: `Duplicate methodId "${r.methodId}"` });
        seen.add(r.methodId);
      });
    }),
  taxRates: z
    .record(z.string().regex(/^[A-Z]{2}$/, "keys must be upper-case ISO 3166-1 alpha-2 country codes"), z.strictObject({
      rateBps: z.number().int().min(0).max(10_000),
      name: shortText(100).nullish(),
    }))
    .refine((m) => Object.keys(m).length <= 250, "at most 250 countries"),
});

export const calculateInput = z.strictObject({
  kind: z.enum(["cart_estimate", "checkout_final"]).default("cart_estimate"),
  selectedShippingMethodId: shortText(200).nullish(),
  persist: z.boolean().default(false),
  shippingAddress: addressSchema.optional(),
  billingAddress: addressSchema.optional(),
  taxDate: calendarDate.optional(),
});
type CalculateInput = z.output<typeof calculateInput>;

function tenantIds(ctx: Ctx): TenantIds {
  const t = requireTenant(ctx);
  return { applicationId: t.applicationId, environmentId: t.environmentId };
}

function configOf(row: ShippingTaxSettings | null): ShippingTaxConfig {
  return {
    flatRates: (row?.flatRates as unknown as FlatRate[] | undefined) ?? [],
    taxRates: (row?.taxRates as unknown as Record<string, TaxRate> | undefined) ?? {},
  };
}

export function settingsView(row: ShippingTaxSettings | null) {
  return { ...configOf(row), updatedAt: row?.updatedAt.toISOString() ?? null };
}

/** The tenant's provider settings; an unconfigured tenant has no rates and no tax table. */
export async function loadShippingTaxConfig(ctx: Ctx, tenant: TenantIds): Promise<ShippingTaxConfig> {
  return configOf(await findSettings(ctx, tenant));
}

function findSettings(ctx: Ctx, t: TenantIds) {
  return ctx.db.shippingTaxSettings.findUnique({ where: { applicationId_environmentId: { applicationId: t.applicationId, environmentId: t.environmentId } } });
}

export async function getSettings(ctx: Ctx) {
  requireScope(ctx, "shipping_tax:read");
  return findSettings(ctx, tenantIds(ctx));
}

/** Replaces both tables (PUT semantics: each is required; send [] or {} to empty one). */
export async function putSettings(ctx: Ctx, body: unknown) {
  requireScope(ctx, "shipping_tax:write");
  const input = parseInput(settingsInput, body);
  const t = tenantIds(ctx);
  const flatRates: FlatRate[] = input.flatRates.map(toShippingRate);
  const taxRates = Object.fromEntries(Object.entries(input.taxRates).map(([c, r]) => [c, { rateBps: r.rateBps, name: r.name ?? null }]));
  const data = { flatRates: flatRates as unknown as object, taxRates };
  return ctx.db.shippingTaxSettings.upsert({
    where: { applicationId_environmentId: { applicationId: t.applicationId, environmentId: t.environmentId } },
    create: { ...t, ...data },
    update: data,
  });
}

// ---- calculation ---------------------------------------------------------------------------------------

export interface CartCalculation {
  snapshotId: string;
  shipping: { methods: SelectedShipping[]; selectedMethod: SelectedShipping | null };
  tax: { lines: TaxLine[] };
  totals: CartTotals;
}

/**
 * The built-in provider, pure: methods are the flat rates (none when no line requires shipping); the
 * selection is the requested method, else the cart's current one (refreshed to the configured rate when it
 * is one of the methods); tax is the country rate of the shipping address (the billing address when there
 * is none), half up, on subtotal - discountTotal + shippingTotal. Totals are the cart's own formula applied
 * to the result, so persisting the calculation makes the cart read the same totals.
 */
export function calculateForCart(cart: CartWithItems, config: ShippingTaxConfig, selectedShippingMethodId?: string | null): Omit<CartCalculation, "snapshotId"> {
  const ships = cart.lineItems.some((l) => l.requiresShipping);
  const methods: SelectedShipping[] = ships
    ? config.flatRates.map((r) => ({ ...toShippingRate(r), currency: cart.currency }))
    : [];
  const current = selectedShippingOf(cart);
  let selectedMethod: SelectedShipping | null;
  if (selectedShippingMethodId) {
    selectedMethod = methods.find((m) => m.methodId === selectedShippingMethodId) ?? null;
    if (!selectedMethod) {
      throw new DomainError("validation_error", `Shipping method "${selectedShippingMethodId}" is not available for this cart`, {
        issues: [{ path: ["selectedShippingMethodId"], message: "Unknown or unavailable shipping method" }],
        availableMethodIds: methods.map((m) => m.methodId),
      });
    }
  } else {
    selectedMethod = current ? (methods.find((m) => m.methodId === current.methodId) ?? current) : null;
  }

  const address = (cart.shippingAddress ?? cart.billingAddress) as { countryCode?: string } | null;
  const country = address?.countryCode ?? null;
  const rate = country ? config.taxRates[country] : undefined;
  const base = cartTotals({ lineItems: cart.lineItems, selectedShipping: selectedMethod, taxLines: [], appliedDiscount: cart.appliedDiscount });
  const taxable = Math.max(0, base.subtotal - base.discountTotal + base.shippingTotal);
  const lines: TaxLine[] = rate && country ? [{ name: rate.name ?? "Tax", amount: applyBps(taxable, rate.rateBps), rateBps: rate.rateBps, jurisdiction: country }] : [];
  return {
    shipping: { methods, selectedMethod },
    tax: { lines },
    totals: cartTotals({ lineItems: cart.lineItems, selectedShipping: selectedMethod, taxLines: lines, appliedDiscount: cart.appliedDiscount }),
  };
}

/** Either scope suffices: a storefront backend holding only carts:write can price its own carts. */
function requireCalculateScope(ctx: Ctx) {
  const p = requireSecretOrDashboard(ctx);
  const anyOf = ["shipping_tax:write", "carts:write"];
  if (!anyOf.some((s) => hasScope(p.scopes, s))) {
    throw new DomainError("insufficient_scopes", "This credential needs shipping_tax:write or carts:write", { required: anyOf, anyOf: true });
  }
}

/**
 * POST /shipping-tax/carts/{cartId}/calculate. Inline addresses are written to the cart first. With
 * `persist` (or kind checkout_final) the selected method becomes the cart's selectedShipping and the tax
 * lines its taxLines. Anything that writes needs an open cart (409 cart_not_editable); a pure estimate
 * reads any cart.
 */
export async function calculateCart(ctx: Ctx, cartId: string, body: unknown): Promise<CartCalculation> {
  requireCalculateScope(ctx);
  const input: CalculateInput = parseInput(calculateInput, body ?? {});
  const t = tenantIds(ctx);
  const persist = input.persist || input.kind === "checkout_final";
  const writesAddress = input.shippingAddress !== undefined || input.billingAddress !== undefined;
  const snapshotId = randomUUID();

  if (!persist && !writesAddress) {
    const cart = await findCart(ctx, t, cartId);
    if (!cart) throw cartErrors.notFound();
    return { snapshotId, ...calculateForCart(cart, await loadShippingTaxConfig(ctx, t), input.selectedShippingMethodId) };
  }

  return withTx(ctx, async (tx) => {
    await lockEditableCart(tx, t, cartId);
    const eventTenant = principalEventTenant(tx);
    if (writesAddress) {
      await tx.db.cart.update({ where: { id: cartId }, data: addressData(input) });
      const changed = (["shippingAddress", "billingAddress"] as const).filter((k) => input[k] !== undefined);
      await recordEvent(tx, eventTenant, "cart.updated", { cartId, changed, source: "shipping_tax_calculation" });
    }
    const cart = (await findCart(tx, t, cartId))!;
    const result = calculateForCart(cart, await loadShippingTaxConfig(tx, t), input.selectedShippingMethodId);
    if (persist) {
      assertTotalsFit(result.totals);
      const previous = selectedShippingOf(cart);
      const selected = result.shipping.selectedMethod;
      await tx.db.cart.update({
        where: { id: cartId },
        data: { selectedShipping: jsonOrNull(selected as object | null), taxLines: result.tax.lines as unknown as object },
      });
      if (selected && stableStringify(selected) !== stableStringify(previous)) {
        await recordEvent(tx, eventTenant, "cart.shipping_selected", { cartId, selectedShipping: selected, snapshotId });
      }
      await recordEvent(tx, eventTenant, "cart.tax_recomputed", {
        cartId,
        source: "calculation",
        kind: input.kind,
        snapshotId,
        taxLines: result.tax.lines,
        taxTotal: result.totals.taxTotal,
      });
    }
    return { snapshotId, ...result };
  });
}

