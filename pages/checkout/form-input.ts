// The checkout form as posted (POST /checkout/{id}, urlencoded: the page works without JavaScript) turned into the
// body completeCheckout takes, and completion's refusals turned back into words a buyer understands, each on the
// field it is about. The page keeps what the buyer typed, so an error re-render loses nothing.
import { termsHash } from "../../src/checkout/checkout-complete.service";
import { netTermsText } from "../../src/checkout/checkout-page.service";
import { DomainError } from "../../src/shared/errors";

/** The posted form: field name -> trimmed value (names as the form's inputs: "shippingAddress.city", …). */
export type Fields = Record<string, string>;
/** field name -> what to fix */
export type FieldErrors = Record<string, string>;

const ADDRESS_KEYS = ["addressLine1", "addressLine2", "city", "stateProvince", "postalCode", "countryCode"] as const;

export function readForm(raw: unknown): Fields {
  const out: Fields = {};
  for (const [k, v] of Object.entries((raw ?? {}) as Record<string, unknown>)) if (typeof v === "string" && k.length <= 60) out[k] = v.trim();
  return out;
}

/** An address from its fields, or undefined when the buyer left it empty (the country select always has a value). */
function addressOf(f: Fields, prefix: string) {
  const typed = ADDRESS_KEYS.filter((k) => k !== "countryCode").some((k) => f[`${prefix}.${k}`]);
  if (!typed) return undefined;
  const a: Record<string, string> = {};
  for (const k of ADDRESS_KEYS) if (f[`${prefix}.${k}`]) a[k] = f[`${prefix}.${k}`];
  return a;
}

/**
 * completeCheckout's body from the form, or the fields to fix first. Net-N terms are accepted with the hash of the
 * exact terms text the page showed (netTermsText(netN)); `now` is when the buyer accepted them.
 */
export function completionBody(f: Fields, netN: number, now: Date): { body: Record<string, unknown>; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const method = f.paymentMethod ?? "";
  if (!method) errors.paymentMethod = "Choose how you want to pay.";
  const body: Record<string, unknown> = { paymentMethod: method };
  if (f.email) body.email = f.email;
  const shipping = addressOf(f, "shippingAddress");
  if (shipping) body.shippingAddress = shipping;
  const billing = f.billingSameAsShipping === "1" ? shipping : addressOf(f, "billingAddress");
  if (billing) body.billingAddress = billing;
  if (method === "card" && f.paymentToken) body.paymentToken = f.paymentToken;
  if (method === "net30") {
    if (!f.companyName) errors.companyName = "Enter your company's name: the invoice is made out to it.";
    if (!f.billingEmail) errors.billingEmail = "Enter the email address the invoice goes to.";
    if (f.acceptTerms !== "1") errors.acceptTerms = `Tick the box to accept the Net ${netN} terms.`;
    body.net30Acceptance = { termsHash: termsHash(netTermsText(netN)), acceptedAt: now.toISOString(), companyName: f.companyName, billingEmail: f.billingEmail };
  }
  return { body, errors };
}

const TOO_LONG = (what: string, max: number) => `${what} is too long: ${max} characters at most.`;
/** A field's message when completion refused its value; `empty`: the buyer left it blank. */
function fieldMessage(field: string, empty: boolean): string {
  const key = field.split(".").pop()!;
  const address = field.startsWith("billingAddress") ? "billing" : "shipping";
  switch (key) {
    case "email":
    case "billingEmail":
      return empty ? "Enter your email address." : "Enter an email address like name@example.com.";
    case "addressLine1":
      return empty ? `Enter the street address for ${address}.` : TOO_LONG("The street address", 200);
    case "addressLine2":
      return TOO_LONG("The second address line", 200);
    case "city":
      return empty ? "Enter the town or city." : TOO_LONG("The town or city", 100);
    case "stateProvince":
      return TOO_LONG("The state or province", 100);
    case "postalCode":
      return TOO_LONG("The postal code", 20);
    case "countryCode":
      return "Choose a country from the list.";
    case "companyName":
      return empty ? "Enter your company's name: the invoice is made out to it." : TOO_LONG("The company name", 200);
    case "paymentToken":
      return "Enter your card details.";
    default:
      return "Check this field.";
  }
}

/** The form field a completion input path is about ("net30Acceptance.companyName" is the form's "companyName"). */
const fieldOf = (path: (string | number)[]) => (path[0] === "net30Acceptance" ? (path[1] === "billingEmail" ? "billingEmail" : path[1] === "companyName" ? "companyName" : "acceptTerms") : path.join("."));

const MISSING: Record<string, [field: string, message: string]> = {
  email: ["email", "Enter your email address."],
  shippingAddress: ["shippingAddress.addressLine1", "Enter the shipping address."],
  billingAddress: ["billingAddress.addressLine1", "Enter the billing address, or tick “Same as shipping address”."],
  paymentToken: ["paymentToken", "Enter your card details."],
  net30Acceptance: ["acceptTerms", "Accept the payment terms to place the order."],
};

/**
 * Completion's refusal in the buyer's words: on the fields it is about, else for the form as a whole. (A completed or
 * expired session is not an error to show: the page handler sends the receipt or the closed page for those.)
 */
export function refusalOf(e: DomainError, f: Fields): { fields: FieldErrors; form: string | null } {
  const d = (e.details ?? {}) as { issues?: { path: (string | number)[] }[]; fields?: string[]; reason?: string };
  if (e.code === "validation_error" && d.issues?.length) {
    const fields: FieldErrors = {};
    for (const i of d.issues) {
      const field = fieldOf(i.path);
      fields[field] ??= fieldMessage(field, !f[field]);
    }
    return { fields, form: null };
  }
  if (e.code === "missing_required_field" && d.fields?.length) {
    return { fields: Object.fromEntries(d.fields.map((k) => MISSING[k] ?? [k, "This is required."])), form: null };
  }
  if (e.code === "payment_failed") {
    const declined = d.reason === "card_declined";
    return { fields: { paymentToken: declined ? "Your card was declined. Check the details or use another card." : "The payment did not go through. Try again or use another card." }, form: null };
  }
  if (e.code === "payment_method_not_allowed") return { fields: { paymentMethod: "This payment method is not available for this order. Choose another." }, form: null };
  const FORM: Record<string, string> = {
    checkout_in_progress: "Your order is already being placed. Wait a moment, then reload this page.",
    no_payment_connection: "The store cannot take this payment method right now. Choose another, or contact the store.",
    session_not_open: "This cart was already ordered through another checkout. Return to the store to see your order.",
    discount_invalid: "The discount code on this order can no longer be used. Return to the store to update your cart.",
  };
  return { fields: {}, form: FORM[e.code] ?? e.message };
}
