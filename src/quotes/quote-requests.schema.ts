// GraphQL for quote request forms, a buyer's request through one, and a quote request from a cart: the same
// services as REST (quote-requests.service.ts).
import { compact } from "../graphql/args";
import { builder } from "../graphql/builder";
import { pageOf, pageArgs, pageInput } from "../graphql/shared-types";
import { revealed } from "../shared/secrets";
import { createRequestForm, listRequestForms, requestQuoteFromCart, rotateFormToken, submitQuoteRequest } from "./quote-requests.service";
import { QuoteRef } from "./quotes.schema";

type FormV = import("./quote-requests.service").FormView;

const FormFieldsRef = builder.objectRef<FormV["fields"]>("QuoteRequestFormFields").implement({
  description: "What a hosted request form asks for",
  fields: (t) => ({
    lineItems: t.exposeBoolean("lineItems", { description: "Item rows (false: a written message only)" }),
    targetPrice: t.exposeBoolean("targetPrice", { description: "Buyers may name a target price per line" }),
    requireBotChallenge: t.exposeBoolean("requireBotChallenge", { description: "A bot-challenge token is verified server-side" }),
  }),
});

const QuoteRequestFormRef = builder.objectRef<FormV>("QuoteRequestForm").implement({
  description: "A hosted request-for-quote form; its qrf_ token is shown once, when minted",
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name", { description: "Your name for the form" }),
    fields: t.field({ type: FormFieldsRef, description: "What it asks for", resolve: (f) => f.fields }),
    successMessage: t.exposeString("successMessage", { nullable: true, description: "Shown after a submission" }),
    tokenPrefix: t.exposeString("tokenPrefix", { description: "The token's first characters, to tell forms apart" }),
    formToken: t.string({ nullable: true, description: "The qrf_ token, only in the response that minted it", resolve: (f, _a, ctx) => revealed(f.formToken, ctx) }),
    hostedUrl: t.string({ nullable: true, description: "The hosted form's URL (carries the token), only when minted", resolve: (f, _a, ctx) => revealed(f.hostedUrl, ctx) }),
    createdAt: t.field({ type: "DateTime", resolve: (f) => f.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (f) => f.updatedAt }),
  }),
});
const QuoteRequestFormPage = pageOf("QuoteRequestFormPage", QuoteRequestFormRef, "quote request forms");

const FormFieldsInput = builder.inputType("QuoteRequestFormFieldsInput", {
  description: "What the form asks for",
  fields: (t) => ({
    lineItems: t.boolean({ description: "Item rows (default true)" }),
    targetPrice: t.boolean({ description: "Target prices per line (default false)" }),
    requireBotChallenge: t.boolean({ description: "Require a bot challenge (default false)" }),
  }),
});

const QuoteRequestItemInput = builder.inputType("QuoteRequestItemInput", {
  description: "A line the buyer asks about",
  fields: (t) => ({
    name: t.string({ required: true, description: "What they need" }),
    sku: t.string({ description: "Stock keeping unit" }),
    referenceId: t.string({ description: "Your product id" }),
    quantity: t.int({ description: "Units, default 1" }),
    targetUnitPrice: t.int({ description: "The price they hope for, minor units (forms with targetPrice)" }),
    note: t.string({ description: "A note on the line" }),
  }),
});

const ReceiptRef = builder.objectRef<{ received: true }>("QuoteRequestReceipt").implement({
  description: "The answer to every accepted submission",
  fields: (t) => ({ received: t.exposeBoolean("received", { description: "Always true" }) }),
});

builder.queryFields((t) => ({
  quoteRequestForms: t.field({
    type: QuoteRequestFormPage,
    description: "Request forms, newest first (never their tokens)",
    authScopes: { scope: "quotes:read" },
    args: { ...pageArgs(t) },
    resolve: (_r, a, ctx) => listRequestForms(ctx, pageInput(a)),
  }),
}));

builder.mutationFields((t) => ({
  createQuoteRequestForm: t.field({
    type: QuoteRequestFormRef,
    description: "A hosted request form; the response carries its qrf_ token once",
    authScopes: { scope: "quotes:write" },
    args: {
      name: t.arg.string({ required: true, description: "Your name for it" }),
      fields: t.arg({ type: FormFieldsInput, description: "What it asks for" }),
      successMessage: t.arg.string({ description: "Shown after a submission" }),
    },
    resolve: (_r, a, ctx) => createRequestForm(ctx, compact({ ...a, fields: a.fields ? compact(a.fields) : undefined })),
  }),
  rotateQuoteRequestFormToken: t.field({
    type: QuoteRequestFormRef,
    description: "Mints a new qrf_ token (shown once); the old one stops working at once",
    authScopes: { scope: "quotes:write" },
    args: { id: t.arg.id({ required: true, description: "The form's id" }) },
    resolve: (_r, a, ctx) => rotateFormToken(ctx, String(a.id), {}),
  }),
  submitQuoteRequest: t.field({
    type: ReceiptRef,
    description: "Keyless: a buyer's request through a form token (rate limited per IP; honeypot, fill time, bot challenge)",
    args: {
      formToken: t.arg.string({ required: true, description: "The form's qrf_ token" }),
      email: t.arg.string({ required: true, description: "The buyer's email" }),
      companyName: t.arg.string({ description: "The buyer's company" }),
      name: t.arg.string({ description: "The buyer's name (stored on the customer when new or when it has none)" }),
      phone: t.arg.string({ description: "The buyer's phone (stored on the customer when new or when it has none)" }),
      buyerReference: t.arg.string({ description: "The buyer's reference" }),
      message: t.arg.string({ description: "What they need (required without items)" }),
      items: t.arg({ type: [QuoteRequestItemInput], description: "Lines they ask about" }),
      cartId: t.arg.id({ description: "A cart of the form's application whose lines join the request" }),
      formLoadedAt: t.arg.float({ required: true, description: "Epoch milliseconds when the form loaded" }),
      website: t.arg.string({ description: "The honeypot: leave empty" }),
      botChallengeToken: t.arg.string({ description: "The bot challenge's token (forms that require it)" }),
    },
    resolve: (_r, a, ctx) =>
      submitQuoteRequest(ctx, compact({ ...a, cartId: a.cartId == null ? null : String(a.cartId), items: a.items ? a.items.map((i) => compact(i)) : undefined })),
  }),
  requestQuoteFromCart: t.field({
    type: QuoteRef,
    description: "A quote request from a cart's lines (unpriced, the cart's prices kept as targets); the cart is unchanged",
    authScopes: { scope: "quotes:write" },
    args: {
      cartId: t.arg.id({ required: true, description: "The cart" }),
      buyerReference: t.arg.string({ description: "The buyer's reference" }),
      note: t.arg.string({ description: "The buyer's note: the first shared comment" }),
      customerEmail: t.arg.string({ description: "Needed when the cart has no buyer email" }),
    },
    resolve: (_r, { cartId, ...a }, ctx) => requestQuoteFromCart(ctx, String(cartId), compact(a)),
  }),
}));
