// GraphQL for the mail outbox and the lifecycle email templates: the same services as the /emails and
// /email-templates routes.
import { compact } from "../graphql/args";
import { builder } from "../graphql/builder";
import { pageArgs, pageInput, pageOf } from "../graphql/shared-types";
import { deleteEmailTemplate, type EmailTemplateView, type EmailView, getEmailTemplate, listEmails, listEmailTemplates, previewEmailTemplate, putEmailTemplate } from "./mail.service";
import type { RenderedEmail } from "./templates";
import { describedEnum } from "../graphql/shared-types";

const EmailStatusEnum = describedEnum<"queued" | "sending" | "sent" | "kept" | "failed">("EmailStatus", "Where an email is", {
  queued: "Waiting for the mail job (or a retry)",
  sending: "Claimed by the mail job",
  sent: "Accepted by the SMTP server",
  kept: "Rendered and kept in the outbox (no SMTP_URL)",
  failed: "Refused after every retry",
});
const AudienceEnum = describedEnum<"buyer" | "merchant" | "invitee" | "member">("EmailAudience", "Who an email is for", { buyer: "The quote's buyer", merchant: "The merchant team", invitee: "A person invited to join the workspace", member: "Named members: an application's admins, an extension's publisher" });

const EmailRef = builder.objectRef<EmailView>("Email").implement({
  description: "An email in the outbox",
  fields: (t) => ({
    id: t.exposeID("id", { description: "The email" }),
    template: t.exposeString("template", { description: "The lifecycle template, e.g. customer.quote_proposed" }),
    audience: t.field({ type: AudienceEnum, description: "Who it is for", resolve: (e) => e.audience as "buyer" }),
    to: t.exposeStringList("to", { description: "Recipients (the merchant team's once sent)" }),
    replyTo: t.exposeString("replyTo", { nullable: true, description: "Reply-To once rendered: the rep who acted, else the seller's contact address" }),
    status: t.field({ type: EmailStatusEnum, description: "Where it is", resolve: (e) => e.status as "queued" }),
    subject: t.exposeString("subject", { nullable: true, description: "Set once rendered" }),
    html: t.exposeString("html", { nullable: true, description: "The rendered HTML, once rendered" }),
    text: t.exposeString("text", { nullable: true, description: "The plain-text part, once rendered" }),
    quoteId: t.exposeID("quoteId", { nullable: true, description: "The quote it is about" }),
    orderId: t.exposeID("orderId", { nullable: true, description: "The order it is about" }),
    paymentId: t.exposeID("paymentId", { nullable: true, description: "The payment it is about (receipt, invoice)" }),
    attempts: t.exposeInt("attempts", { description: "Send attempts so far" }),
    lastError: t.exposeString("lastError", { nullable: true, description: "The last refusal, if any" }),
    sentAt: t.field({ type: "DateTime", nullable: true, description: "When the SMTP server accepted it", resolve: (e) => e.sentAt }),
    createdAt: t.field({ type: "DateTime", description: "When it was queued", resolve: (e) => e.createdAt }),
  }),
});
const EmailPage = pageOf("EmailPage", EmailRef, "emails");

type Defaults = EmailTemplateView["defaults"];
const TemplateTextRef = builder.objectRef<Defaults>("EmailTemplateText").implement({
  description: "A template's text fields",
  fields: (t) => ({
    subject: t.exposeString("subject", { description: "The subject line" }),
    heading: t.exposeString("heading", { description: "The heading" }),
    body: t.exposeString("body", { description: "The message" }),
    ctaLabel: t.exposeString("ctaLabel", { nullable: true, description: "The button's label (null: no button)" }),
  }),
});

const EmailTemplateRef = builder.objectRef<EmailTemplateView>("EmailTemplate").implement({
  description: "A lifecycle email template: text fields with {{placeholders}}, editable per application",
  fields: (t) => ({
    name: t.exposeString("name", { description: "e.g. customer.quote_proposed" }),
    audience: t.field({ type: AudienceEnum, description: "Who it is for", resolve: (v) => v.audience }),
    description: t.exposeString("description", { description: "When it is sent" }),
    subject: t.exposeString("subject", { description: "The subject line in effect" }),
    heading: t.exposeString("heading", { description: "The heading in effect" }),
    body: t.exposeString("body", { description: "The message in effect" }),
    ctaLabel: t.exposeString("ctaLabel", { nullable: true, description: "The button's label (null: no button)" }),
    defaults: t.field({ type: TemplateTextRef, description: "The built-in text", resolve: (v) => v.defaults }),
    customized: t.exposeBoolean("customized", { description: "This application edited it" }),
    variables: t.exposeStringList("variables", { description: "The placeholders a template may use" }),
    updatedAt: t.field({ type: "DateTime", nullable: true, description: "When this application last edited it", resolve: (v) => v.updatedAt }),
  }),
});

const RenderedEmailRef = builder.objectRef<RenderedEmail>("RenderedEmail").implement({
  description: "A template rendered for a preview",
  fields: (t) => ({
    subject: t.exposeString("subject", { description: "The subject line" }),
    html: t.exposeString("html", { description: "The HTML (MJML, strictly validated)" }),
    text: t.exposeString("text", { description: "The plain-text part" }),
  }),
});

const VarInput = builder.inputType("EmailTemplateVarInput", {
  description: "A placeholder's value for a preview",
  fields: (t) => ({ name: t.string({ required: true, description: "A placeholder, e.g. quoteNumber" }), value: t.string({ required: true, description: "Its value" }) }),
});

builder.queryFields((t) => ({
  emails: t.field({
    type: EmailPage,
    description: "The mail outbox, newest first",
    authScopes: { scope: "applications:read" },
    args: {
      ...pageArgs(t),
      template: t.arg.string({ description: "Only this template" }),
      status: t.arg({ type: EmailStatusEnum, description: "Only in this state" }),
      quoteId: t.arg.id({ description: "Only this quote's" }),
      to: t.arg.string({ description: "Only to this address" }),
      paymentId: t.arg.id({ description: "Only this payment's (receipts, invoices)" }),
    },
    resolve: (_r, { first, after, limit, cursor, ...a }, ctx) =>
      listEmails(ctx, { ...pageInput({ first, after, limit, cursor }), ...compact({ ...a, quoteId: a.quoteId == null ? a.quoteId : String(a.quoteId), paymentId: a.paymentId == null ? a.paymentId : String(a.paymentId) }) }),
  }),
  emailTemplates: t.field({
    type: [EmailTemplateRef],
    description: "Every lifecycle email template with this application's edits",
    authScopes: { scope: "applications:read" },
    resolve: (_r, _a, ctx) => listEmailTemplates(ctx),
  }),
  emailTemplate: t.field({
    type: EmailTemplateRef,
    description: "A lifecycle email template",
    authScopes: { scope: "applications:read" },
    args: { name: t.arg.string({ required: true, description: "e.g. customer.quote_proposed" }) },
    resolve: (_r, a, ctx) => getEmailTemplate(ctx, a.name),
  }),
}));

builder.mutationFields((t) => ({
  updateEmailTemplate: t.field({
    type: EmailTemplateRef,
    description: "Edits a template's text fields; null returns a field to the default",
    authScopes: { scope: "applications:write" },
    args: {
      name: t.arg.string({ required: true, description: "e.g. customer.quote_proposed" }),
      subject: t.arg.string({ description: "The subject line ({{placeholders}} allowed)" }),
      heading: t.arg.string({ description: "The heading" }),
      body: t.arg.string({ description: "The message" }),
      ctaLabel: t.arg.string({ description: "The button's label; \"\" removes the button" }),
    },
    resolve: (_r, { name, ...a }, ctx) => putEmailTemplate(ctx, name, compact(a as Record<string, unknown>)),
  }),
  resetEmailTemplate: t.field({
    type: EmailTemplateRef,
    description: "Back to the default template",
    authScopes: { scope: "applications:write" },
    args: { name: t.arg.string({ required: true, description: "e.g. customer.quote_proposed" }) },
    resolve: (_r, a, ctx) => deleteEmailTemplate(ctx, a.name),
  }),
  previewEmailTemplate: t.field({
    type: RenderedEmailRef,
    description: "The template rendered with sample values (or those sent)",
    authScopes: { scope: "applications:read" },
    args: { name: t.arg.string({ required: true, description: "e.g. customer.quote_proposed" }), vars: t.arg({ type: [VarInput], description: "Values to use instead of the samples" }) },
    resolve: (_r, a, ctx) => previewEmailTemplate(ctx, a.name, a.vars ? { vars: Object.fromEntries(a.vars.map((v) => [v.name, v.value])) } : {}),
  }),
}));
