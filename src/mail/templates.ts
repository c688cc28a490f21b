// The lifecycle emails (quotes.md part 6): one catalog; the renderer is render.ts. A template is text fields (subject,
// heading, body, button label) with {{placeholders}}; an application may override those fields (never raw MJML or
// HTML). Below the text, an email carries the facts of what it is about (`summary`: references, lines, totals, what
// was paid and what remains), built by the code that queues it, never editable.
export { renderEmail, type RenderedEmail } from "./render";

/** buyer and invitee emails go to the addresses queued with them; merchant emails to the team, resolved at send */
type Audience = "buyer" | "merchant" | "invitee" | "member";

export interface TemplateText {
  subject: string;
  heading: string;
  body: string;
  /** the button's label; the button links to `cta` */
  ctaLabel: string | null;
}

interface TemplateDef extends TemplateText {
  audience: Audience;
  description: string;
  /** the variable holding the button's URL */
  cta: "quoteUrl" | "checkoutUrl" | "invoiceUrl" | "inviteUrl" | null;
}

/** The facts block under an email's text: references (label, value), the lines, the totals. Plain text values. */
export interface EmailSummary {
  facts: { label: string; value: string }[];
  lines: { name: string; quantity: number; amount: string; note?: string }[];
  /** the last `strong` row is the bottom line (Total, Amount due) */
  totals: { label: string; amount: string; strong?: boolean }[];
}

export const EMAIL_TEMPLATES = {
  "customer.quote_request_received": {
    audience: "buyer",
    description: "To the buyer when their request is submitted",
    subject: "We received your quote request {{quoteNumber}}",
    heading: "Thanks, your request is in",
    body: "{{merchantName}} received your request for a quote ({{quoteNumber}}) and will send you an offer soon.",
    ctaLabel: "View your request",
    cta: "quoteUrl",
  },
  "admin.quote_requested": {
    audience: "merchant",
    description: "To the merchant team when a request is submitted",
    subject: "New quote request {{quoteNumber}} from {{customerEmail}}",
    heading: "A buyer asked for a quote",
    body: "{{customerEmail}} asked for a quote ({{quoteNumber}}). Price the lines and issue a revision.",
    ctaLabel: null,
    cta: null,
  },
  "customer.quote_proposed": {
    audience: "buyer",
    description: "To the buyer when a revision is issued",
    subject: "Quote {{quoteNumber}} from {{merchantName}}: {{total}}",
    heading: "Your quote {{quoteNumber}} is ready",
    body: "{{merchantName}} sent you a quote for {{total}}, valid until {{expiresAt}}. Review the lines and terms below, then accept it online.",
    ctaLabel: "Review and accept",
    cta: "quoteUrl",
  },
  "customer.quote_comment_added": {
    audience: "buyer",
    description: "To the buyer when the merchant adds a shared comment",
    subject: "New message on quote {{quoteNumber}}",
    heading: "{{commentAuthor}} wrote",
    body: "{{commentBody}}",
    ctaLabel: "Reply",
    cta: "quoteUrl",
  },
  "admin.quote_comment_added": {
    audience: "merchant",
    description: "To the merchant team when the buyer comments",
    subject: "{{commentAuthor}} commented on {{quoteNumber}}",
    heading: "{{commentAuthor}} wrote",
    body: "{{commentBody}}",
    ctaLabel: null,
    cta: null,
  },
  "admin.quote_revision_requested": {
    audience: "merchant",
    description: "To the merchant team when the buyer asks for changes",
    subject: "Changes requested on {{quoteNumber}}",
    heading: "The buyer asked for changes",
    body: "{{customerEmail}} asked for changes to {{quoteNumber}}: {{message}}",
    ctaLabel: null,
    cta: null,
  },
  "customer.quote_accepted": {
    audience: "buyer",
    description: "To the buyer when the quote is accepted",
    subject: "Quote {{quoteNumber}} accepted: {{total}}",
    heading: "Thanks, quote {{quoteNumber}} is accepted",
    body: "{{acceptedBy}} accepted quote {{quoteNumber}} from {{merchantName}} for {{total}}. Complete the checkout to place the order.",
    ctaLabel: "Complete checkout",
    cta: "checkoutUrl",
  },
  "admin.quote_accepted": {
    audience: "merchant",
    description: "To the merchant team when the quote is accepted",
    subject: "{{quoteNumber}} accepted by {{acceptedBy}}",
    heading: "Quote accepted",
    body: "{{acceptedBy}} accepted revision {{revisionNumber}} of {{quoteNumber}}: {{acceptedItems}} ({{total}}); checkout has started.",
    ctaLabel: null,
    cta: null,
  },
  "customer.quote_declined": {
    audience: "buyer",
    description: "To the buyer when the merchant declines, with the reason",
    subject: "About your quote {{quoteNumber}}",
    heading: "{{merchantName}} declined the quote",
    body: "{{merchantName}} declined quote {{quoteNumber}}. Reason: {{reason}}",
    ctaLabel: null,
    cta: null,
  },
  "admin.quote_declined": {
    audience: "merchant",
    description: "To the merchant team when the buyer declines",
    subject: "{{quoteNumber}} declined by the buyer",
    heading: "The buyer declined",
    body: "{{customerEmail}} declined {{quoteNumber}}. Reason: {{reason}}",
    ctaLabel: null,
    cta: null,
  },
  "customer.quote_expiring": {
    audience: "buyer",
    description: "To the buyer 24 hours before the quote expires",
    subject: "Quote {{quoteNumber}} expires soon",
    heading: "Your quote expires soon",
    body: "Quote {{quoteNumber}} ({{total}}) from {{merchantName}} expires on {{expiresAt}}.",
    ctaLabel: "Review the quote",
    cta: "quoteUrl",
  },
  "admin.quote_expiring": {
    audience: "merchant",
    description: "To the merchant team 48 hours before the quote expires",
    subject: "{{quoteNumber}} expires in 48 hours",
    heading: "A quote expires soon",
    body: "{{quoteNumber}} for {{customerEmail}} ({{total}}) expires on {{expiresAt}} and has not been accepted.",
    ctaLabel: null,
    cta: null,
  },
  "customer.quote_expired": {
    audience: "buyer",
    description: "To the buyer when the quote expires",
    subject: "Quote {{quoteNumber}} has expired",
    heading: "Your quote has expired",
    body: "Quote {{quoteNumber}} from {{merchantName}} expired on {{expiresAt}}. Reply to ask for a new offer.",
    ctaLabel: "Open the quote",
    cta: "quoteUrl",
  },
  "admin.quote_expired": {
    audience: "merchant",
    description: "To the merchant team when the quote expires",
    subject: "{{quoteNumber}} expired",
    heading: "A quote expired",
    body: "{{quoteNumber}} for {{customerEmail}} expired unaccepted. Issue a new revision to reactivate the same link.",
    ctaLabel: null,
    cta: null,
  },
  "customer.order_comp_voided": {
    audience: "buyer",
    description: "To the buyer when a comp waived their balance and voided their card authorization or unpaid invoice",
    subject: "You will not be charged {{total}} by {{merchantName}}",
    heading: "Your balance was waived",
    body: "{{merchantName}} waived the balance of your order, so the {{total}} card authorization or invoice was cancelled and nothing will be charged. Reason: {{reason}}",
    ctaLabel: null,
    cta: null,
  },
  "customer.payment_receipt": {
    audience: "buyer",
    description: "To the buyer on every capture (card at checkout or later, 3-D Secure, Net-N marked paid, manual records)",
    subject: "Receipt from {{merchantName}}: {{amount}} paid for order {{orderNumber}}",
    heading: "Thanks, we received {{amount}}",
    body: "{{merchantName}} received {{amount}} by {{paymentMethod}} on {{paidAt}} for order {{orderNumber}}. {{balanceText}}",
    ctaLabel: null,
    cta: null,
  },
  "customer.net30_invoice_issued": {
    audience: "buyer",
    description: "To the buyer when a Net-N invoice is issued at checkout (and on resend), with its download link",
    subject: "Invoice {{invoiceNumber}} from {{merchantName}}: {{amount}} due {{dueDate}}",
    heading: "Invoice {{invoiceNumber}}: {{amount}} due on {{dueDate}}",
    body: "{{merchantName}} issued invoice {{invoiceNumber}} for order {{orderNumber}}. Please pay {{amount}} by {{dueDate}}.",
    ctaLabel: "Download the invoice",
    cta: "invoiceUrl",
  },
  "member.invitation": {
    audience: "invitee",
    description: "To the person invited to join the workspace (on create and on each resend), with the accept link",
    subject: "{{inviterEmail}} invited you to {{workspaceName}}",
    heading: "Join {{workspaceName}}",
    body: "{{inviterEmail}} invited you to join the {{workspaceName}} workspace. The invitation is valid until {{expiresAt}}; sign in as {{inviteeEmail}} to accept it.",
    ctaLabel: "Accept the invitation",
    cta: "inviteUrl",
  },
  "client.partner_handoff": {
    audience: "buyer",
    description: "To a partner's client when the partner hands the trial workspace and its billing over (POST /partner/trials/{id}/claim-billing)",
    subject: "{{merchantName}} is handing {{workspaceName}} over to you",
    heading: "Your workspace is ready",
    body: "{{merchantName}} set up the workspace {{workspaceName}} for you and hands it and its billing over. To accept, send this handoff code to POST /api/v1/partner/handoffs/accept before {{expiresAt}}: {{handoffToken}}",
    ctaLabel: null,
    cta: null,
  },
  "member.extension_endpoint_alert": {
    audience: "member",
    description: "To the application's admins and the extension's publisher when an extension install's endpoint keeps failing (three 401/403 answers in a row, a failed probe, or suspension after repeated dead letters)",
    subject: "Extension {{extensionName}}: its webhook endpoint needs attention",
    heading: "{{extensionName}} is not receiving events",
    body: "The webhook endpoint of the extension {{extensionName}} installed in {{merchantName}} needs attention: {{message}}",
    ctaLabel: null,
    cta: null,
  },
} as const satisfies Record<string, TemplateDef>;

export type TemplateName = keyof typeof EMAIL_TEMPLATES;
export const TEMPLATE_NAMES = Object.keys(EMAIL_TEMPLATES) as TemplateName[];
export const isTemplateName = (n: string): n is TemplateName => Object.hasOwn(EMAIL_TEMPLATES, n);

/** What a template may use; every value is plain text (formatted money and dates included). */
export interface EmailVars {
  quoteNumber?: string;
  merchantName: string;
  customerEmail?: string;
  revisionNumber?: string;
  total?: string;
  expiresAt?: string;
  commentAuthor?: string;
  commentBody?: string;
  reason?: string;
  message?: string;
  acceptedBy?: string;
  /** the accepted lines, "Widget x 2, Setup x 1" (accepted emails) */
  acceptedItems?: string;
  quoteUrl?: string;
  checkoutUrl?: string;
  /** the quote PDF (buyer link) */
  pdfUrl?: string;
  /** the payment terms in words ("Net 30: invoiced, due 30 days after the order") */
  paymentTerms?: string;
  /** the buyer's PO / reference */
  poNumber?: string;
  orderNumber?: string;
  /** paid to date on the order, what remains, and the sentence that says so ("USD 50.00 remains, due on ...") */
  amountPaid?: string;
  amountDue?: string;
  balanceText?: string;
  // payments and invoices
  amount?: string;
  orderId?: string;
  paymentMethod?: string;
  paidAt?: string;
  invoiceNumber?: string;
  dueDate?: string;
  invoiceUrl?: string;
  // workspace invitations and partner handoffs
  workspaceName?: string;
  inviterEmail?: string;
  inviteeEmail?: string;
  inviteUrl?: string;
  handoffToken?: string;
  // extensions
  extensionName?: string;
  /** not placeholders: the facts block, and the rep who acted (Reply-To) */
  summary?: EmailSummary;
  repEmail?: string;
}
export const VARIABLES: (keyof EmailVars)[] = ["quoteNumber", "merchantName", "customerEmail", "revisionNumber", "total", "expiresAt", "commentAuthor", "commentBody", "reason", "message", "acceptedBy", "acceptedItems", "quoteUrl", "checkoutUrl",
  "pdfUrl", "paymentTerms", "poNumber", "orderNumber", "amountPaid", "amountDue", "balanceText", "amount", "orderId", "paymentMethod", "paidAt", "invoiceNumber", "dueDate", "invoiceUrl", "workspaceName", "inviterEmail", "inviteeEmail", "inviteUrl", "handoffToken", "extensionName"];

export interface Brand {
  name: string;
  /** the seller's legal name (settings.seller), shown in the footer when set */
  legalName?: string | null;
  logoUrl: string | null;
  brandColor: string | null;
  supportEmail: string | null;
}

export const SAMPLE_VARS: EmailVars = {
  quoteNumber: "Q-1042",
  merchantName: "Acme Supplies",
  customerEmail: "buyer@example.com",
  revisionNumber: "2",
  total: "USD 1,550.00",
  expiresAt: "December 24, 2026",
  commentAuthor: "Sam from Acme",
  commentBody: "We can ship the widgets next week.",
  reason: "We no longer stock this item.",
  message: "Could you do Net 60?",
  acceptedBy: "Bea Buyer",
  acceptedItems: "Industrial widget x 3, On-site setup x 1",
  quoteUrl: "https://checkout.example.com/q/qt_sample",
  checkoutUrl: "https://checkout.example.com/checkout/sample",
  pdfUrl: "https://api.example.com/api/v1/quote-links/qt_sample/pdf",
  paymentTerms: "Net 30: invoiced, due 30 days after the order",
  poNumber: "PO-7781",
  orderNumber: "#7D0F2C1E",
  amountPaid: "USD 0.00",
  amountDue: "USD 1,550.00",
  balanceText: "USD 1,550.00 remains, due on December 25, 2026.",
  amount: "USD 1,550.00",
  orderId: "7d0f2c1e-5b7a-4e0c-9a51-2f4b8c6d1e90",
  paymentMethod: "card",
  paidAt: "November 25, 2026",
  invoiceNumber: "INV-1042",
  dueDate: "December 25, 2026",
  invoiceUrl: "https://api.example.com/api/v1/payments/7d0f2c1e-5b7a-4e0c-9a51-2f4b8c6d1e90/invoice/download?token=sample",
  workspaceName: "Acme",
  inviterEmail: "owner@acme.example",
  inviteeEmail: "sam@acme.example",
  inviteUrl: "https://dashboard.example.com/invites/inv_sample",
  handoffToken: "hof_sample",
  extensionName: "Shipping Labels Pro",
  summary: {
    facts: [
      { label: "Quote", value: "Q-1042" },
      { label: "Order", value: "#7D0F2C1E" },
      { label: "Your PO", value: "PO-7781" },
    ],
    lines: [
      { name: "Industrial widget", quantity: 3, amount: "USD 1,200.00" },
      { name: "On-site setup", quantity: 1, amount: "USD 350.00", note: "Optional" },
    ],
    totals: [
      { label: "Subtotal", amount: "USD 1,550.00" },
      { label: "Shipping", amount: "USD 0.00" },
      { label: "Tax", amount: "USD 0.00" },
      { label: "Total", amount: "USD 1,550.00", strong: true },
    ],
  },
};

