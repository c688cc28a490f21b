// The scope registry: every scope the three specifications name, the read/write pairs they imply, and "*".
import { errors } from "./errors";

export const ALL_SCOPES = [
  "*",
  "api_keys:read",
  "application_scripts:read",
  "application_scripts:write",
  "applications:read",
  "applications:write",
  "billing:read",
  "billing:write",
  "carts:read",
  "carts:write",
  "checkout:write",
  "connectors:read",
  "connectors:write",
  "customer_payment_methods:read",
  "customer_payment_methods:write",
  "customers:read",
  "customers:write",
  "discounts:read",
  "discounts:write",
  "events:read",
  "extensions:install",
  "extensions:read",
  "extensions:write",
  "fulfillment_digital:read",
  "fulfillments:read",
  "fulfillments:write",
  "imports:read",
  "imports:write",
  "invoices:read",
  "invoices:write",
  "order_cancellations:write",
  "order_comps:write",
  "order_holds:write",
  "order_returns:read",
  "order_returns:write",
  "orders:read",
  "orders:write",
  "payment_disputes:read",
  "payment_disputes:write",
  "payment_records:write",
  "payment_refunds:read",
  "payment_refunds:write",
  "payments:read",
  "payments:write",
  "quotes:read",
  "quotes:write",
  "shipping_quotes:write",
  "shipping_tax:read",
  "shipping_tax:write",
  "subscriptions:read",
  "subscriptions:write",
  "tax_calculations:write",
  "team_members:read",
  "team_members:write",
  "webhooks:read",
  "webhooks:write",
  // staff-only: registered so they are recognised, never grantable to keys
  "admin:read",
  "admin:write",
] as const;

const REGISTRY = new Set<string>(ALL_SCOPES);
/** Publishable keys hold only the two browser-safe compute scopes. */
export const PUBLISHABLE_SCOPES = new Set(["shipping_quotes:write", "tax_calculations:write"]);
/** Human and staff scopes extensions can never hold (platform.md part 4 rule 1). */
export const NON_EXTENSION_PREFIXES = ["team_members:", "billing:", "admin:"];

/**
 * Scopes an OAuth client may be granted (consent page, registration metadata, access tokens): the registry less
 * "*", staff scopes, the human/dashboard scopes (team members, billing) and the two publishable-only compute scopes.
 */
export const OAUTH_SCOPES: readonly string[] = ALL_SCOPES.filter(
  (s) => s !== "*" && !NON_EXTENSION_PREFIXES.some((p) => s.startsWith(p)) && !PUBLISHABLE_SCOPES.has(s),
);

export function isStaffScope(s: string) {
  return s.startsWith("admin:");
}

/**
 * Validates a key's requested scopes. The first entry "publishable" asks for a publishable key.
 * Returns the key type and its de-duplicated scopes, or throws 400 invalid_scope.
 */
export function validateKeyScopes(requested: string[]): { type: "secret" | "publishable"; scopes: string[] } {
  const publishable = requested[0] === "publishable";
  const scopes = [...new Set(publishable ? requested.slice(1) : requested)];
  const unknown = scopes.filter((s) => !REGISTRY.has(s));
  if (unknown.length) throw errors.invalidScope(unknown, "unknown scope");
  const staff = scopes.filter(isStaffScope);
  if (staff.length) throw errors.invalidScope(staff, "staff-only scopes cannot be granted to keys");
  if (publishable) {
    const wrong = scopes.filter((s) => !PUBLISHABLE_SCOPES.has(s));
    if (wrong.length) throw errors.invalidScope(wrong, "publishable keys may hold only shipping_quotes:write and tax_calculations:write");
    if (scopes.length === 0) throw errors.invalidScope(["publishable"], "a publishable key needs at least one of shipping_quotes:write, tax_calculations:write");
  } else if (scopes.length === 0) {
    throw errors.invalidScope([], "at least one scope is required");
  }
  return { type: publishable ? "publishable" : "secret", scopes };
}

export function hasScope(held: readonly string[], needed: string) {
  return held.includes("*") || held.includes(needed);
}
