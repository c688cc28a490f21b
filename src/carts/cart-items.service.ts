// Cart line items (commerce.md part 2): add, change amounts or quantity, remove. Image URLs are stored
// absolute: relative paths are resolved against the application's storefront base URL at write time.
import { z } from "zod";
import type { CartLineItem } from "../generated/prisma/client";
import { principalEventTenant, recordEvent } from "../events/events.service";
import { requireScope, requireTenant } from "../platform/auth.service";
import { metadataSchema } from "../shared/address";
import { type Ctx, withTx } from "../shared/context";
import { errors, type Issue, parseInput } from "../shared/errors";
import { amount, lineTotal, MAX_AMOUNT } from "../shared/money";
import { cartErrors } from "./carts.errors";
import { assertCartFits, assertCartTotalsFit } from "./carts.service";
import { lockEditableCart, type TenantIds } from "./carts.machine";
import { dropDiscountBelowMinimum } from "../discounts/discounts.service";

export const MAX_LINE_ITEMS = 250;
export const LINE_ITEM_TYPES = ["product", "subscription", "service", "ticket", "donation", "custom"] as const;

/** The line columns are 32-bit integers. */
const MAX_INT = 2_147_483_647;
const lineAmount = amount.max(MAX_INT);
const quantity = z.number().int().min(1).max(1_000_000);

export const addItemInput = z.strictObject({
  type: z.enum(LINE_ITEM_TYPES).default("product"),
  referenceId: z.string().trim().min(1).max(255).nullish(),
  name: z.string().trim().min(1).max(500),
  description: z.string().max(5_000).nullish(),
  unitPrice: lineAmount,
  quantity: quantity.default(1),
  taxAmount: lineAmount.default(0),
  discountAmount: lineAmount.default(0),
  imageUrl: z.string().trim().min(1).max(2_048).nullish(),
  requiresShipping: z.boolean().optional(),
  metadata: metadataSchema.optional(),
});

export const updateItemInput = z.strictObject({
  quantity: quantity.optional(),
  unitPrice: lineAmount.optional(),
  taxAmount: lineAmount.optional(),
  discountAmount: lineAmount.optional(),
  metadata: metadataSchema.optional(),
});

const UUID = z.uuid();

function tenantIds(ctx: Ctx): TenantIds {
  const t = requireTenant(ctx);
  return { applicationId: t.applicationId, environmentId: t.environmentId };
}

/** A line's gross must stay summable and its discount cannot exceed it. */
function checkLineAmounts(l: { unitPrice: number; quantity: number; discountAmount: number }) {
  const gross = lineTotal({ unitPrice: l.unitPrice, quantity: l.quantity });
  const issues: Issue[] = [];
  if (gross > MAX_AMOUNT) issues.push({ path: ["quantity"], message: `unitPrice x quantity must not exceed ${MAX_AMOUNT}` });
  else if (l.discountAmount > gross) issues.push({ path: ["discountAmount"], message: "must not exceed unitPrice x quantity" });
  if (issues.length) throw errors.validation(issues);
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

function httpUrl(value: unknown): URL | null {
  if (typeof value !== "string") return null;
  try {
    const u = new URL(value);
    return u.protocol === "http:" || u.protocol === "https:" ? u : null;
  } catch {
    return null;
  }
}

/**
 * Absolute http(s) URLs are kept as sent; other schemes are a validation error. A relative path resolves
 * against settings.storefrontBaseUrl, else the first of settings.allowedOrigins (the base is a directory:
 * `img/a.png` lands under its path, `/img/a.png` at its origin); with neither: 400 image_url_unresolvable.
 */
export async function resolveImageUrl(ctx: Ctx, applicationId: string, imageUrl: string): Promise<string> {
  if (SCHEME.test(imageUrl)) {
    if (!httpUrl(imageUrl)) throw errors.validation([{ path: ["imageUrl"], message: "must be an absolute http(s) URL or a relative path" }]);
    return imageUrl;
  }
  const app = await ctx.db.application.findUnique({ where: { id: applicationId }, select: { settings: true } });
  const settings = (app?.settings ?? {}) as { storefrontBaseUrl?: unknown; allowedOrigins?: unknown };
  const origins = Array.isArray(settings.allowedOrigins) ? settings.allowedOrigins : [];
  const base = httpUrl(settings.storefrontBaseUrl) ?? httpUrl(origins[0]);
  if (!base) throw cartErrors.imageUrlUnresolvable(imageUrl);
  if (!base.pathname.endsWith("/")) base.pathname += "/";
  return new URL(imageUrl, base).toString();
}

async function findItem(ctx: Ctx, cartId: string, id: string): Promise<CartLineItem> {
  const item = UUID.safeParse(id).success ? await ctx.db.cartLineItem.findFirst({ where: { id, cartId } }) : null;
  if (!item) throw cartErrors.itemNotFound();
  return item;
}

export async function addLineItem(ctx: Ctx, cartId: string, body: unknown) {
  requireScope(ctx, "carts:write");
  const input = parseInput(addItemInput, body);
  checkLineAmounts(input);
  const t = tenantIds(ctx);
  return withTx(ctx, async (tx) => {
    await lockEditableCart(tx, t, cartId);
    const imageUrl = input.imageUrl ? await resolveImageUrl(tx, t.applicationId, input.imageUrl) : null;
    // One statement under the cart's row lock (taken above, so it sees every line committed before it): the line is
    // inserted only while the cart holds fewer than MAX_LINE_ITEMS, and the cart's totals come back with it.
    const [row] = await tx.db.$queryRaw<(CartLineItem & { before: { n: number; subtotal: number; discount: number; tax: number }; selectedShipping: unknown; taxLines: unknown })[]>`
      WITH cur AS (
        SELECT count(*)::int AS n, COALESCE(SUM("unitPrice"::bigint * quantity), 0)::float8 AS subtotal,
               COALESCE(SUM("discountAmount"), 0)::float8 AS discount, COALESCE(SUM("taxAmount"), 0)::float8 AS tax
        FROM "CartLineItem" WHERE "cartId" = ${cartId}::uuid
      )
      INSERT INTO "CartLineItem" (id, "cartId", type, "referenceId", name, description, "unitPrice", quantity, "taxAmount", "discountAmount",
                                  "imageUrl", "requiresShipping", metadata, "createdAt")
      SELECT gen_random_uuid(), ${cartId}::uuid, ${input.type}, ${input.referenceId ?? null}, ${input.name}, ${input.description ?? null},
             ${input.unitPrice}::int, ${input.quantity}::int, ${input.taxAmount}::int, ${input.discountAmount}::int, ${imageUrl},
             ${input.requiresShipping ?? input.type !== "service"}, ${JSON.stringify(input.metadata ?? {})}::jsonb, clock_timestamp()
      FROM cur WHERE cur.n < ${MAX_LINE_ITEMS}
      RETURNING *, (SELECT row_to_json(cur) FROM cur) AS before,
        (SELECT "selectedShipping" FROM "Cart" WHERE id = ${cartId}::uuid) AS "selectedShipping",
        (SELECT "taxLines" FROM "Cart" WHERE id = ${cartId}::uuid) AS "taxLines"`;
    if (!row) throw errors.validation([{ path: ["lineItems"], message: `A cart holds at most ${MAX_LINE_ITEMS} line items` }]);
    const { before, selectedShipping, taxLines, ...item } = row;
    const subtotal = before.subtotal + item.unitPrice * item.quantity;
    assertCartFits(subtotal, before.discount + item.discountAmount, before.tax + item.taxAmount, selectedShipping, taxLines);
    await recordEvent(tx, principalEventTenant(tx), "cart.item_added", {
      cartId,
      lineItemId: item.id,
      type: item.type,
      referenceId: item.referenceId,
      quantity: item.quantity,
      unitPrice: item.unitPrice,
    });
    return item;
  });
}

export async function updateLineItem(ctx: Ctx, cartId: string, id: string, body: unknown) {
  requireScope(ctx, "carts:write");
  const input = parseInput(updateItemInput, body ?? {});
  const t = tenantIds(ctx);
  return withTx(ctx, async (tx) => {
    await lockEditableCart(tx, t, cartId);
    const item = await findItem(tx, cartId, id);
    const next = {
      unitPrice: input.unitPrice ?? item.unitPrice,
      quantity: input.quantity ?? item.quantity,
      taxAmount: input.taxAmount ?? item.taxAmount,
      discountAmount: input.discountAmount ?? item.discountAmount,
    };
    checkLineAmounts(next);
    const changed = Object.keys(input).filter((k) => input[k as keyof typeof input] !== undefined);
    if (!changed.length) return item;
    const updated = await tx.db.cartLineItem.update({
      where: { id: item.id },
      data: { ...next, ...(input.metadata !== undefined ? { metadata: input.metadata as object } : {}) },
    });
    await assertCartTotalsFit(tx, cartId);
    if (input.quantity !== undefined || input.unitPrice !== undefined) await dropDiscountBelowMinimum(tx, cartId);
    await recordEvent(tx, principalEventTenant(tx), "cart.item_updated", {
      cartId,
      lineItemId: item.id,
      changed,
      quantity: updated.quantity,
      unitPrice: updated.unitPrice,
    });
    return updated;
  });
}

export async function removeLineItem(ctx: Ctx, cartId: string, id: string) {
  requireScope(ctx, "carts:write");
  const t = tenantIds(ctx);
  await withTx(ctx, async (tx) => {
    await lockEditableCart(tx, t, cartId);
    const item = await findItem(tx, cartId, id);
    await tx.db.cartLineItem.delete({ where: { id: item.id } });
    await dropDiscountBelowMinimum(tx, cartId);
    await recordEvent(tx, principalEventTenant(tx), "cart.item_removed", { cartId, lineItemId: item.id, referenceId: item.referenceId });
  });
}
