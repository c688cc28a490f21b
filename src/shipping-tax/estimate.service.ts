// The publishable-key estimate (commerce.md part 4, "publishable-token estimate"): POST /shipping-tax/estimate prices
// a storefront's basket without a cart, from a browser. Authority: the publishable key (pk_…) in `quoteToken`, and in
// X-API-Key when the page sends it (then both must be the same key). Secret keys and dashboard sessions are refused
// (403 forbidden): a secret never belongs in a browser, and server code prices carts with the calculate route.
// The computation is the cart calculation's (calculateForCart), on a basket of one line per item.
import { z } from "zod";
import type { CartWithItems } from "../carts/carts.service";
import { authenticate, authenticateRequest } from "../platform/auth.service";
import type { Principal } from "../shared/principal";
import { type Ctx, reportLimit } from "../shared/context";
import { DomainError, errors, parseInput } from "../shared/errors";
import { amount, currencyCode, MAX_AMOUNT, sum } from "../shared/money";
import { hasScope } from "../shared/scopes";
import { calculateForCart, loadShippingTaxConfig, type ShippingTaxConfig } from "./shipping-tax.service";

export const ESTIMATE_PATH = "/shipping-tax/estimate";
const ESTIMATE_SCOPES = ["shipping_quotes:write", "tax_calculations:write"];

const text = (max: number) => z.string().trim().max(max).nullish();
/** An estimate needs no street: the country prices tax; the rest is kept for richer providers. */
const estimateAddress = z.strictObject({
  addressLine1: text(200),
  addressLine2: text(200),
  city: text(100),
  stateProvince: text(100),
  postalCode: text(20),
  countryCode: z
    .string()
    .regex(/^[A-Za-z]{2}$/, "must be an ISO 3166-1 alpha-2 code")
    .transform((c) => c.toUpperCase()),
});

export const estimateInput = z.strictObject({
  applicationId: z.uuid(),
  quoteToken: z.string().trim().min(1).max(200),
  currency: z.string().trim().toUpperCase().pipe(currencyCode),
  items: z
    .array(
      z.strictObject({
        id: z.string().trim().min(1).max(200),
        /** the line's amount: unit price x quantity, less its own discounts, in minor units */
        subtotalAmount: amount,
        quantity: z.number().int().min(1).max(1_000_000).default(1),
        requiresShipping: z.boolean().default(true),
        taxCategory: z.string().trim().min(1).max(100).nullish(),
      }),
    )
    .min(1)
    .max(250),
  discountsTotal: amount.default(0),
  selectedShippingMethodId: z.string().trim().min(1).max(200).nullish(),
  addresses: z.strictObject({ shipping: estimateAddress.nullish(), billing: estimateAddress.nullish() }).optional(),
});

export interface EstimateNote {
  code: string;
  message: string;
  field?: string;
}

export const invalidQuoteToken = (message = "quoteToken is not a valid publishable key") => new DomainError("invalid_quote_token", message);

/**
 * The publishable key the estimate runs as. With X-API-Key (already authenticated by the middleware, whose 401 on this
 * path is invalid_quote_token) the quoteToken must be that same key; without it, the quoteToken authenticates under
 * the same limits as a header key.
 */
function refuseNonPublishable(ctx: Ctx) {
  if (ctx.principal && ctx.principal.apiKey?.type !== "publishable") {
    throw errors.forbidden("The estimate is for browsers and takes a publishable key (pk_…) only; price carts from your server with POST /shipping-tax/carts/{cartId}/calculate");
  }
}

async function estimatePrincipal(ctx: Ctx, quoteToken: string): Promise<Principal> {
  const header = ctx.principal;
  let token: Principal | null;
  try {
    if (header) token = await authenticate(ctx, { apiKey: quoteToken });
    else {
      const auth = await authenticateRequest(ctx, { apiKey: quoteToken });
      reportLimit(ctx, auth.limit);
      token = auth.principal;
    }
  } catch (e) {
    if (e instanceof DomainError && e.status === 401) throw invalidQuoteToken();
    throw e;
  }
  if (!token || token.apiKey?.type !== "publishable") throw invalidQuoteToken("quoteToken must be a publishable key (pk_…)");
  if (header && header.apiKey!.id !== token.apiKey.id) throw invalidQuoteToken("quoteToken is not the key sent in X-API-Key");
  return token;
}

/** POST /shipping-tax/estimate. */
export async function estimateQuote(ctx: Ctx, body: unknown) {
  refuseNonPublishable(ctx);
  const input = parseInput(estimateInput, body);
  const p = await estimatePrincipal(ctx, input.quoteToken);
  const canShip = hasScope(p.scopes, "shipping_quotes:write");
  const canTax = hasScope(p.scopes, "tax_calculations:write");
  if (!canShip && !canTax) throw errors.insufficientScopes(ESTIMATE_SCOPES);
  if (!p.application || p.application.id !== input.applicationId) throw new DomainError("store_not_found", "No store with this applicationId for this key");

  const subtotal = sum(input.items.map((i) => i.subtotalAmount));
  if (subtotal > MAX_AMOUNT) throw errors.validation([{ path: ["items"], message: `The items' subtotalAmount must not sum past ${MAX_AMOUNT}` }]);
  const prompts: EstimateNote[] = [];
  const warnings: EstimateNote[] = [];
  const errs: EstimateNote[] = [];
  const discount = Math.min(input.discountsTotal, subtotal);
  if (discount < input.discountsTotal) warnings.push({ code: "discounts_exceed_subtotal", message: "discountsTotal is more than the items' subtotal; it was capped at the subtotal", field: "discountsTotal" });

  const currency = p.application.currency;
  const result = (status: "estimated" | "final" | "failed", calc: ReturnType<typeof calculateForCart> | null) => ({
    kind: "quote" as const,
    status,
    currency,
    shipping: { methods: calc?.shipping.methods ?? [], selectedMethod: calc?.shipping.selectedMethod ?? null },
    tax: { taxTotal: calc?.totals.taxTotal ?? 0, lines: calc?.tax.lines ?? [] },
    totals: calc?.totals ?? { subtotal, discountTotal: discount, shippingTotal: 0, taxTotal: 0, total: subtotal - discount },
    prompts,
    warnings,
    errors: errs,
  });
  if (input.currency !== currency) {
    errs.push({ code: "currency_mismatch", message: `The store prices in ${currency}, not ${input.currency}`, field: "currency" });
    return result("failed", null);
  }

  const stored = await loadShippingTaxConfig(ctx, { applicationId: p.application.id, environmentId: p.environment.id });
  const ships = input.items.some((i) => i.requiresShipping);
  const config: ShippingTaxConfig = { flatRates: canShip ? stored.flatRates : [], taxRates: canTax ? stored.taxRates : {} };
  if (ships && !canShip) warnings.push({ code: "shipping_not_permitted", message: "This key lacks shipping_quotes:write: no shipping methods are quoted" });
  if (!canTax) warnings.push({ code: "tax_not_permitted", message: "This key lacks tax_calculations:write: tax is not calculated" });

  const basket = {
    currency,
    lineItems: input.items.map((i) => ({ unitPrice: i.subtotalAmount, quantity: 1, taxAmount: 0, discountAmount: 0, requiresShipping: i.requiresShipping })),
    selectedShipping: null,
    taxLines: [],
    shippingAddress: input.addresses?.shipping ?? null,
    billingAddress: input.addresses?.billing ?? null,
    appliedDiscount: discount > 0 ? { discountId: "", code: "discountsTotal", type: "fixed", value: discount } : null,
  } as unknown as CartWithItems;

  let calc: ReturnType<typeof calculateForCart>;
  try {
    calc = calculateForCart(basket, config, input.selectedShippingMethodId);
  } catch (e) {
    if (!(e instanceof DomainError && e.code === "validation_error")) throw e;
    errs.push({ code: "shipping_method_unavailable", message: `Shipping method "${input.selectedShippingMethodId}" is not one of the methods on offer`, field: "selectedShippingMethodId" });
    calc = calculateForCart(basket, config, null);
  }

  if (ships && canShip) {
    if (calc.shipping.methods.length === 0) warnings.push({ code: "no_shipping_methods", message: "The store has no shipping rates configured" });
    else if (!calc.shipping.selectedMethod) prompts.push({ code: "select_shipping_method", message: "Choose one of shipping.methods and send its methodId as selectedShippingMethodId", field: "selectedShippingMethodId" });
  }
  const country = (input.addresses?.shipping ?? input.addresses?.billing)?.countryCode ?? null;
  if (canTax) {
    if (!country) prompts.push({ code: "address_required", message: "Send addresses.shipping (or addresses.billing) with a countryCode to calculate tax", field: ships ? "addresses.shipping" : "addresses.billing" });
    else if (!stored.taxRates[country]) warnings.push({ code: "no_tax_rate", message: `The store charges no tax for ${country}` });
  }
  return result(errs.length ? "failed" : prompts.length ? "estimated" : "final", calc);
}
