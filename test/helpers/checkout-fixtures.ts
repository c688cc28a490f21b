// Checkout sessions as the hosted-checkout tests meet them: an anonymous storefront cart, and a quote's checkout
// (a customer with addresses, the quote's company and PO, accepted at the buyer link) on card, Net-N or deposit terms.
import type { BootstrapResult } from "../../src/platform/bootstrap.service";
import type { client } from "./http";

type Api = ReturnType<typeof client>;
type Demo = Pick<BootstrapResult, "apiKey" | "applicationId">;

export const SHIP_TO = { addressLine1: "500 Harbor Blvd", addressLine2: "Dock 4", city: "Oakland", stateProvince: "CA", postalCode: "94607", countryCode: "US" };
export const BILL_TO = { addressLine1: "1 Finance Way", city: "Toronto", stateProvince: "ON", postalCode: "M5H 2N2", countryCode: "CA" };

const unique = () => Math.random().toString(36).slice(2, 10);

/** A storefront cart (Widget 2 x 42.00) and its session, created without a customer unless `extra` names one. */
export async function storefrontSession(api: Api, demo: Demo, extra: Record<string, unknown> = {}) {
  const cart = await api("POST", "carts", { key: demo.apiKey, body: {} });
  await api("POST", `carts/${cart.body.data.id}/items`, { key: demo.apiKey, body: { name: "Widget", unitPrice: 4200, quantity: 2 } });
  const s = await api("POST", "checkout/sessions", { key: demo.apiKey, body: { cartId: cart.body.data.id, returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/cart", ...extra } });
  if (s.status !== 201) throw new Error(`session: ${s.status} ${JSON.stringify(s.body)}`);
  return s.body.data as { id: string; hostedUrl: string; allowedMethods: string[] };
}

export type Terms = { mode: "pay_in_full" } | { mode: "net_terms"; netN: number } | { mode: "deposit_balance"; balanceNetN: number };

/**
 * A quote for Northwind Traders (PO-7781) with a customer on file (shipping and billing addresses), issued and
 * accepted at the buyer link: its checkout session id. Lines: Industrial widget 4 x 750.00, On-site setup 1,000.00.
 */
export async function quoteSession(api: Api, demo: Demo, terms: Terms) {
  const email = `buyer-${unique()}@northwind.test`;
  const c = await api("POST", "customers", { key: demo.apiKey, body: { email, company: "Northwind Traders", name: "Nora North", shippingAddress: SHIP_TO, billingAddress: BILL_TO } });
  if (c.status !== 201) throw new Error(`customer: ${c.status} ${JSON.stringify(c.body)}`);
  const body: Record<string, unknown> = {
    customerEmail: email,
    companyName: "Northwind Traders",
    buyerReference: "PO-7781",
    items: [
      { name: "Industrial widget", unitPrice: 75000, quantity: 4 },
      { name: "On-site setup", unitPrice: 100000, type: "service" },
    ],
    paymentTerms: terms,
    ...(terms.mode === "deposit_balance" ? { deposit: { type: "fixed", value: 120000 } } : {}),
  };
  const q = await api("POST", "quotes", { key: demo.apiKey, body });
  if (q.status !== 201) throw new Error(`quote: ${q.status} ${JSON.stringify(q.body)}`);
  const issued = (await api("POST", `quotes/${q.body.data.id}/issue`, { key: demo.apiKey, body: {} })).body.data;
  const acc = await api("POST", `quote-links/${issued.quote.shareToken}/accept`, { body: { revisionId: issued.revision.id, acceptedByName: "Nora North" } });
  if (acc.status !== 200) throw new Error(`accept: ${acc.status} ${JSON.stringify(acc.body)}`);
  const url = acc.body.data.checkoutUrl as string;
  return { id: url.split("/").pop()!, hostedUrl: url, quote: issued.quote as { id: string; number: string; shareToken: string }, email };
}

/** The value of the form control named `name` in the page's HTML (inputs; the selected option of a select). */
export function valueOf(html: string, name: string): string | null {
  const tag = new RegExp(`<input[^>]*name="${name.replace(/\./g, "\\.")}"[^>]*>`).exec(html)?.[0];
  if (tag) return /value="([^"]*)"/.exec(tag)?.[1] ?? "";
  const select = new RegExp(`<select[^>]*name="${name.replace(/\./g, "\\.")}"[^>]*>([\\s\\S]*?)</select>`).exec(html)?.[1];
  return select ? (/<option value="([A-Z]{2})" selected/.exec(select)?.[1] ?? null) : null;
}

/** POST the checkout form as a browser without JavaScript would (urlencoded), without following the redirect. */
export function postForm(url: string, fields: Record<string, string>) {
  return fetch(url, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString() });
}
