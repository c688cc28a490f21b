// Response shapes of applications and the mail routes (see ./schemas.ts).
import { z } from "zod";
import { Address, orNull } from "./common-schemas";

const id = z.uuid();
const ts = z.iso.datetime();

export const Application = z
  .object({
    id,
    workspaceId: id,
    name: z.string(),
    slug: z.string(),
    currency: z.string(),
    storefrontBaseUrl: z.string().nullable(),
    allowedOrigins: z.array(z.string()),
    cartRecoveryUrlTemplate: z.string().nullable(),
    checkoutLinkBaseUrl: z.string().nullable(),
    logoUrl: z.string().nullable(),
    brandColor: z.string().nullable(),
    supportEmail: z.string().nullable(),
    seller: z
      .object({
        legalName: z.string().nullable().meta({ description: "Registered name on quotes and invoices (the application's name when null)" }),
        address: orNull(Address),
        taxId: z.string().nullable().meta({ description: "VAT, GST or EIN number" }),
        email: z.string().nullable().meta({ description: "Contact address; buyer emails reply to it" }),
        phone: z.string().nullable(),
        paymentInstructions: z.string().nullable().meta({ description: "Remit-to / bank details printed on invoices" }),
        terms: z.string().nullable().meta({ description: "Default terms a revision carries when the rep wrote none" }),
        notes: z.string().nullable().meta({ description: "Default notes a revision carries when the rep wrote none" }),
      })
      .strict()
      .meta({ id: "Seller", description: "The seller's legal details; an issued revision freezes them" }),
    createdAt: ts,
  })
  .strict()
  .meta({ id: "Application" });

// ---- mail --------------------------------------------------------------------------------------------------

export const Email = z
  .object({
    id,
    template: z.string(),
    audience: z.enum(["buyer", "merchant", "invitee", "member"]),
    to: z.array(z.string()),
    replyTo: z.string().nullable().meta({ description: "Reply-To once rendered: the rep who acted, else the seller's contact address (seller.email, else supportEmail)" }),
    status: z.enum(["queued", "sending", "sent", "kept", "failed"]),
    subject: z.string().nullable().meta({ description: "Set once rendered by the mail job" }),
    html: z.string().nullable(),
    text: z.string().nullable(),
    quoteId: id.nullable(),
    orderId: id.nullable(),
    paymentId: id.nullable(),
    attempts: z.number().int(),
    lastError: z.string().nullable(),
    sentAt: ts.nullable(),
    createdAt: ts,
  })
  .strict()
  .meta({ id: "Email" });

const templateText = { subject: z.string(), heading: z.string(), body: z.string(), ctaLabel: z.string().nullable() };
export const EmailTemplate = z
  .object({
    name: z.string(),
    audience: z.enum(["buyer", "merchant", "invitee", "member"]),
    description: z.string(),
    ...templateText,
    defaults: z.object(templateText).strict(),
    customized: z.boolean(),
    variables: z.array(z.string()).meta({ description: "The {{placeholders}} a template may use" }),
    updatedAt: ts.nullable(),
  })
  .strict()
  .meta({ id: "EmailTemplate" });

export const RenderedEmail = z.object({ subject: z.string(), html: z.string(), text: z.string() }).strict().meta({ id: "RenderedEmail" });
