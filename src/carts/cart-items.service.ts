// Cart line items (commerce.md part 2): add, change amounts or quantity, remove. Image URLs are stored
// absolute: relative paths are resolved against the application's storefront base URL at write time.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { type CartLineItem, Prisma } from "../generated/prisma/client";
import { type SqlBool, sql } from "kysely";
import { insertSelect } from "../db/insert-select";
import type { DB } from "../db/sql";
import { announce, newEvent, outboxOf, principalEventTenant, recordEvent } from "../events/events.service";
import { outboxRows, outboxShape, outboxSlots, writingOutboxRows } from "../events/outbox";
import { runTemplate, slotsOf } from "../db/template";
import { requireScope, requireTenant } from "../shared/guards";
import { metadataSchema } from "../shared/address";
import { type Ctx, withTx } from "../shared/context";
import { errors, type Issue, parseInput } from "../shared/errors";
import { amount, lineTotal, MAX_AMOUNT } from "../shared/money";
import { cartErrors } from "./carts.errors";
import { assertCartFits, assertCartTotalsFit, cartFitsSql } from "./carts.service";
import { assertCartEditable, EDITABLE_STATUSES, lockEditableCart, type TenantIds } from "./carts.machine";
import { hook } from "../shared/hook";
import { isUuid } from "../shared/ids";

/**
 * After a line's quantity or price changes, or a line goes (inside its transaction, under the cart's lock): the
 * cart's promotion code is checked against what remains (discounts/discounts.service.ts dropDiscountBelowMinimum,
 * registered at start-up by src/hooks.ts).
 */
export const cartLinesChanged = hook<(tx: Ctx, cartId: string) => Promise<void>>("cart-lines-changed handler (carts/cart-items.service.ts)");

const MAX_LINE_ITEMS = 250;
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
async function resolveImageUrl(ctx: Ctx, applicationId: string, imageUrl: string): Promise<string> {
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
  const item = isUuid(id) ? await ctx.db.cartLineItem.findFirst({ where: { id, cartId } }) : null;
  if (!item) throw cartErrors.itemNotFound();
  return item;
}

/**
 * POST /carts/{id}/items in one statement and no transaction: it locks the cart row (404, or 409 for a cart that is
 * not open), reads its lines' sums after the lock with a fresh snapshot (cart_line_sums, so a line committed by a
 * concurrent add while this one waited is counted), and inserts the line only while the cart holds fewer than
 * MAX_LINE_ITEMS and its totals stay within MAX_AMOUNT; the cart's updatedAt and the cart.item_added event (its outbox
 * CTEs, written only if the line was inserted) are written by the same statement. When nothing was inserted, the
 * reason comes back with the row and is reported as before: the same error, in the same words.
 */
export async function addLineItem(ctx: Ctx, cartId: string, body: unknown) {
  requireScope(ctx, "carts:write");
  const input = parseInput(addItemInput, body);
  checkLineAmounts(input);
  const t = tenantIds(ctx);
  if (!isUuid(cartId)) throw cartErrors.notFound();
  // An unresolvable image is reported after the cart's own 404 or 409, as when the lock came first (a read: nothing
  // is written before the statement).
  const imageUrl = input.imageUrl ? await resolveImageUrl(ctx, t.applicationId, input.imageUrl).catch(async (e) => {
    await assertCartEditable(ctx, t, cartId);
    throw e;
  }) : null;
  const id = randomUUID();
  const added = newEvent(ctx, principalEventTenant(ctx), "cart.item_added", {
    cartId,
    lineItemId: id,
    type: input.type,
    referenceId: input.referenceId ?? null,
    quantity: input.quantity,
    unitPrice: input.unitPrice,
  });
  const gross = input.unitPrice * input.quantity;
  const values = {
    cartId,
    applicationId: t.applicationId,
    environmentId: t.environmentId,
    gross,
    discountAmount: input.discountAmount,
    taxAmount: input.taxAmount,
    now: ctx.clock.now(),
    line: {
      id,
      type: input.type,
      referenceId: input.referenceId ?? null,
      name: input.name,
      description: input.description ?? null,
      unitPrice: input.unitPrice,
      quantity: input.quantity,
      taxAmount: input.taxAmount,
      discountAmount: input.discountAmount,
      imageUrl,
      requiresShipping: input.requiresShipping ?? input.type !== "service",
      metadata: input.metadata ?? {},
    },
    ox: outboxRows(outboxOf(ctx, [added])),
  };
  // one statement, built and compiled once (src/db/template.ts): lock the cart, check it still fits, insert the line,
  // touch the cart, write the event
  const { rows } = await runTemplate(ctx.sql, `cart.addLine.${outboxShape(values.ox)}`, values, (p, shape) => {
    const ref = sql.ref;
    // the cart's parts with this line, as the statement sees them after the lock
    const after = cartFitsSql({
      subtotal: sql<number>`${ref("cur.subtotal")} + ${p.gross}::float8`,
      discount: sql<number>`${ref("cur.discount")} + ${p.discountAmount}::float8`,
      shipping: ref<number>("lock.shipping"),
      tax: sql<number>`${ref("cur.tax")} + ${p.taxAmount}::float8 + ${ref("lock.taxLinesTotal")}`,
    });
    const fits = sql<SqlBool>`${ref("lock.status")} = ANY (${[...EDITABLE_STATUSES]}::text[]) AND ${ref("cur.n")} < ${MAX_LINE_ITEMS} AND ${after}`;
    const statement = ctx.sql
      .with("lock", (db) =>
        db
          .selectFrom("Cart")
          .select((eb) => [
            "id",
            "status",
            "selectedShipping",
            "taxLines",
            sql<number>`COALESCE((${eb.ref("selectedShipping")} ->> 'rateAmount')::float8, 0)`.as("shipping"),
            sql<number>`CASE WHEN jsonb_typeof(${eb.ref("taxLines")}) = 'array' THEN (SELECT COALESCE(SUM((e ->> 'amount')::float8), 0) FROM jsonb_array_elements(${eb.ref("taxLines")}) e) ELSE 0 END`.as("taxLinesTotal"),
          ])
          .where("id", "=", p.cartId)
          .where("applicationId", "=", p.applicationId)
          .where("environmentId", "=", p.environmentId)
          .forUpdate(),
      )
      .with("cur", (db) =>
        db.selectFrom(["lock", sql<{ n: number; subtotal: number; discount: number; tax: number }>`LATERAL cart_line_sums(${ref("lock.id")})`.as("s")]).select(["s.n", "s.subtotal", "s.discount", "s.tax"]),
      )
      .with("ins", (db) =>
        insertSelect(db, "CartLineItem", {
          data: slotsOf(shape.line, "line"),
          set: { cartId: ref("lock.id"), createdAt: sql`clock_timestamp()` },
          from: ["lock", "cur"],
          where: fits,
        }).returning(LINE_COLUMNS),
      )
      .with("touch", (db) => db.updateTable("Cart").set({ updatedAt: p.now }).where("id", "=", (eb) => eb.selectFrom("ins").select("ins.cartId")).returning("id"));
    return writingOutboxRows(statement, outboxSlots(shape.ox, "ox"), sql<SqlBool>`EXISTS (SELECT 1 FROM ${sql.table("ins")})`)
      .selectFrom(sql`(SELECT 1)`.as("one"))
      .leftJoin("ins", (j) => j.onTrue())
      .select(LINE_COLUMNS.map((c) => `ins.${c}` as const))
      .select((eb) => [
        eb.selectFrom("lock").select("lock.status").as("_status"),
        eb.selectFrom("cur").select(sql<{ n: number; subtotal: number; discount: number; tax: number }>`row_to_json(cur)`.as("b")).as("_before"),
        eb.selectFrom("lock").select("lock.selectedShipping").as("_selectedShipping"),
        eb.selectFrom("lock").select("lock.taxLines").as("_taxLines"),
      ]);
  });
  const row = rows[0];
  const { _status, _before: before, _selectedShipping, _taxLines, ...item } = row;
  if (item.id) {
    announce(ctx, [added]);
    return item as unknown as CartLineItem;
  }
  if (_status === null) throw cartErrors.notFound();
  if (!(EDITABLE_STATUSES as readonly string[]).includes(_status)) throw cartErrors.notEditable(_status);
  if (before!.n >= MAX_LINE_ITEMS) throw errors.validation([{ path: ["lineItems"], message: `A cart holds at most ${MAX_LINE_ITEMS} line items` }]);
  assertCartFits(before!.subtotal + gross, before!.discount + input.discountAmount, before!.tax + input.taxAmount, _selectedShipping, _taxLines);
  throw new Error("the line was not inserted, for no reason the statement reported");
}

/** Every column of a cart line row, named (no `*`: src/db/prepared.ts). */
const LINE_COLUMNS = Object.values(Prisma.CartLineItemScalarFieldEnum) as (keyof DB["CartLineItem"] & string)[];

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
    if (input.quantity !== undefined || input.unitPrice !== undefined) await cartLinesChanged.call(tx, cartId);
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
    await cartLinesChanged.call(tx, cartId);
    await recordEvent(tx, principalEventTenant(tx), "cart.item_removed", { cartId, lineItemId: item.id, referenceId: item.referenceId });
  });
}
