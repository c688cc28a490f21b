// The tools /mcp offers: one per main read and write of quotes, orders, customers and carts, each calling the same
// service as its REST route with the same input (the REST zod schema is what tools/list advertises, and what
// mcp.rest.ts validates the arguments with before running the tool, so a tool's bad input gets the REST route's
// field-by-field message). Each tool names the scope it needs and is refused, as a tool error naming that scope,
// when the token lacks it.
import { z } from "zod";
import { addItemInput, addLineItem } from "../carts/cart-items.service";
import { cartView } from "../carts/cart.view";
import { createCart, createCartInput, getCart, updateCart, updateCartInput } from "../carts/carts.service";
import { createCustomer, createCustomerInput, customerView, getCustomer } from "../customers/customers.service";
import { createDraftOrder, createOrderInput, updateOrder, updateOrderInput } from "../orders/order-lifecycle.service";
import { getOrder, listOrders, orderFilters, orderView, readOrder } from "../orders/orders.service";
import { quoteListFilters, createQuoteInput, updateQuoteInput } from "../quotes/quotes.inputs";
import { createQuote, updateQuote } from "../quotes/quotes.service";
import { getQuote, listQuotes } from "../quotes/quote-read.service";
import type { Ctx } from "../shared/context";
import { pageQuery } from "../shared/pagination";

export interface ToolDef {
  name: string;
  title: string;
  description: string;
  scope: string;
  /** the input as REST takes it (body, or query for lists); `id` tools wrap it */
  input: z.ZodType;
  readOnly: boolean;
  run(ctx: Ctx, args: any): Promise<unknown>;
}

const id = (what: string) => z.string().min(1).max(100).describe(`The ${what} id`);
const withId = (what: string, changes: z.ZodType) => z.strictObject({ id: id(what), changes: changes.describe(`The fields to change, as PATCH takes them`) });
const page = <T>(p: { items: T[]; pagination: unknown }, view: (t: T) => unknown = (t) => t) => ({ items: p.items.map(view), pagination: p.pagination });

export const TOOLS: ToolDef[] = [
  {
    name: "list_quotes",
    title: "List quotes",
    description: "Lists quotes, newest first, with optional status, customer and text filters (cursor pagination).",
    scope: "quotes:read",
    input: pageQuery.extend(quoteListFilters),
    readOnly: true,
    run: async (ctx, args) => page(await listQuotes(ctx, args)),
  },
  {
    name: "get_quote",
    title: "Get a quote",
    description: "Reads one quote with its current revision, line items and totals.",
    scope: "quotes:read",
    input: z.strictObject({ id: id("quote") }),
    readOnly: true,
    run: (ctx, args) => getQuote(ctx, args.id),
  },
  {
    name: "create_quote",
    title: "Create a quote",
    description: "Creates a draft quote (same fields as POST /api/v1/quotes). Amounts are integer minor units.",
    scope: "quotes:write",
    input: createQuoteInput,
    readOnly: false,
    run: (ctx, args) => createQuote(ctx, args),
  },
  {
    name: "update_quote",
    title: "Update a quote",
    description: "Changes a quote (same fields as PATCH /api/v1/quotes/{id}).",
    scope: "quotes:write",
    input: withId("quote", updateQuoteInput),
    readOnly: false,
    run: (ctx, args) => updateQuote(ctx, args?.id, args?.changes),
  },
  {
    name: "list_orders",
    title: "List orders",
    description: "Lists orders, newest first, with status, payment status, delivery, customer and text filters.",
    scope: "orders:read",
    input: orderFilters,
    readOnly: true,
    run: async (ctx, args) => page(await listOrders(ctx, args), (o: any) => orderView(o)),
  },
  {
    name: "get_order",
    title: "Get an order",
    description: "Reads one order with its line items, totals, payment and delivery state.",
    scope: "orders:read",
    input: z.strictObject({ id: id("order") }),
    readOnly: true,
    run: async (ctx, args) => orderView(await getOrder(ctx, args.id), { single: true }),
  },
  {
    name: "create_order",
    title: "Create a draft order",
    description: "Creates a draft order (same fields as POST /api/v1/orders).",
    scope: "orders:write",
    input: createOrderInput,
    readOnly: false,
    run: async (ctx, args) => orderView(await createDraftOrder(ctx, args), { single: true }),
  },
  {
    name: "update_order",
    title: "Update an order",
    description: "Changes an order's editable fields (same fields as PATCH /api/v1/orders/{id}).",
    scope: "orders:write",
    input: withId("order", updateOrderInput),
    readOnly: false,
    run: async (ctx, args) => orderView(await readOrder(ctx, await updateOrder(ctx, args?.id, args?.changes)), { single: true }),
  },
  {
    name: "get_customer",
    title: "Get a customer",
    description: "Reads one customer (the id with or without the cus_ prefix).",
    scope: "customers:read",
    input: z.strictObject({ id: id("customer") }),
    readOnly: true,
    run: async (ctx, args) => customerView(await getCustomer(ctx, args.id)),
  },
  {
    name: "create_customer",
    title: "Create a customer",
    description: "Creates a customer (same fields as POST /api/v1/customers).",
    scope: "customers:write",
    input: createCustomerInput,
    readOnly: false,
    run: async (ctx, args) => customerView(await createCustomer(ctx, args)),
  },
  {
    name: "get_cart",
    title: "Get a cart",
    description: "Reads one cart with its line items and totals.",
    scope: "carts:read",
    input: z.strictObject({ id: id("cart") }),
    readOnly: true,
    run: async (ctx, args) => cartView(await getCart(ctx, args.id)),
  },
  {
    name: "create_cart",
    title: "Create a cart",
    description: "Creates a cart (same fields as POST /api/v1/carts).",
    scope: "carts:write",
    input: createCartInput,
    readOnly: false,
    run: async (ctx, args) => cartView(await createCart(ctx, args)),
  },
  {
    name: "update_cart",
    title: "Update a cart",
    description: "Changes a cart (same fields as PATCH /api/v1/carts/{id}).",
    scope: "carts:write",
    input: withId("cart", updateCartInput),
    readOnly: false,
    run: async (ctx, args) => cartView(await updateCart(ctx, args?.id, args?.changes)),
  },
  {
    name: "add_cart_item",
    title: "Add a cart line item",
    description: "Adds a line item to a cart (same fields as POST /api/v1/carts/{id}/items); returns the cart.",
    scope: "carts:write",
    input: z.strictObject({ id: id("cart"), item: addItemInput.describe("The line item, as POST /carts/{id}/items takes it") }),
    readOnly: false,
    run: async (ctx, args) => {
      await addLineItem(ctx, args?.id, args?.item);
      return cartView(await getCart(ctx, args.id));
    },
  },
];
