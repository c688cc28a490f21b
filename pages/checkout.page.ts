// The hosted checkout page: {checkout_url}/checkout/{sessionId}. A thin caller of the checkout service: it
// renders the session's cart, and its form posts to POST /api/v1/checkout-sessions/{id}/complete.
import { Router } from "express";
import { asksShippingAddress, sessionForBuyer } from "../src/checkout/checkout.service";
import { addressSchema } from "../src/shared/address";
import { refusedState } from "../src/rest/http";
import { makeCtx, type Deps } from "../src/shared/context";
import { DomainError } from "../src/shared/errors";
import { limitHeaders } from "../src/shared/rate-limit";
import { type PageScript, scriptsForCheckout } from "../src/application-scripts/scripts.service";
import { esc, money, page } from "./layout";
import { frameableOrigins, securePage } from "./security";

export const NET30_TERMS = "Net 30: the full invoice amount is due within the agreed number of days of the invoice date. Late payments may be charged interest.";

export function checkoutPages(deps: Deps) {
  const r = Router();
  r.get("/checkout/:sessionId", async (req, res) => {
    const ctx = makeCtx(deps, null, req.ip);
    let view;
    try {
      view = await sessionForBuyer(ctx, req.params.sessionId);
    } catch (e) {
      const nonce = await securePage(req, res);
      if (e instanceof DomainError && e.status === 404) return void res.status(404).type("html").send(page(nonce, "Checkout not found", "<h1>Checkout not found</h1><p>This checkout link is not valid.</p>"));
      if (e instanceof DomainError && e.code === "rate_limited") {
        res.set(limitHeaders(refusedState(e), true));
        return void res.status(429).type("html").send(page(nonce, "Too many requests", `<h1>Too many requests</h1><p>${esc(e.message)}</p>`));
      }
      throw e;
    }
    // The merchant's application scripts (none while the kill switch is on): the CSP allows exactly these, by URL and hash.
    const scripts = await scriptsForCheckout(ctx, view.session);
    // Only the application's allowedOrigins may frame the page (embedded checkout); nobody else can.
    const nonce = await securePage(req, res, { frameAncestors: frameableOrigins(view.allowedOrigins), scriptSources: scripts.flatMap((x) => [x.url, `'${x.integrity}'`]) });
    const extra = applicationScripts(nonce, view.session.id, scripts);
    const { session: s, cart, methods, merchant, sandbox } = view;
    const header = `<p class="merchant" id="merchant">${esc(merchant.name)}</p>${
      sandbox ? '<p class="badge" id="sandbox" role="note">Sandbox: a test checkout. No real payment is taken.</p>' : ""
    }`;
    const expired = s.status === "expired" || (s.status === "open" && s.expiresAt <= ctx.clock.now());
    if (s.status !== "open" || expired) {
      const msg = s.status === "completed" ? "This order has been placed. Thank you!" : expired ? "This checkout has expired." : `This checkout is ${s.status}.`;
      return void res.type("html").send(page(nonce, "Checkout", `${header}<h1>Checkout</h1><p id="closed">${esc(msg)}</p>`, "", extra));
    }
    const rows = cart.lineItems.map((l: any) => `<tr><td>${esc(l.name)}</td><td class="num">${esc(l.quantity)}</td><td class="num">${esc(money(l.total, cart.currency))}</td></tr>`).join("");
    // Each charge named: the shipping method, each tax line, and the tax carried on the lines themselves.
    const lineTax = cart.lineItems.reduce((a: number, l: any) => a + l.taxAmount, 0);
    const totals = [
      ["Subtotal", cart.subtotal],
      [cart.appliedDiscount ? `Discount: ${cart.appliedDiscount.code}` : "Discount", -cart.discountTotal],
      [cart.selectedShipping ? `Shipping: ${cart.selectedShipping.displayName}` : "Shipping", cart.shippingTotal],
      ...cart.taxLines.map((t: any) => [`Tax: ${t.name}`, t.amount]),
      ["Tax on items", lineTax],
    ]
      .filter(([, v]) => v !== 0)
      .map(([k, v]) => `<tr><td colspan="2">${esc(k)}</td><td class="num">${esc(money(Number(v), cart.currency))}</td></tr>`).join("");
    const methodInputs = methods.map((m, i) => `<label><input type="radio" name="paymentMethod" value="${esc(m.method)}"${i === 0 ? " checked" : ""}> ${esc(m.displayName)}</label>`).join("");
    // Every field of the canonical address (src/shared/address.ts), so nothing the cart holds is lost on the way.
    const addr = (p: string, a: any) => `
      <label>Address <input type="text" name="${p}.addressLine1" value="${esc(a?.addressLine1)}" autocomplete="address-line1" required></label>
      <label>Address line 2 <input type="text" name="${p}.addressLine2" value="${esc(a?.addressLine2)}" autocomplete="address-line2"></label>
      <label>City <input type="text" name="${p}.city" value="${esc(a?.city)}" autocomplete="address-level2" required></label>
      <label>State / province <input type="text" name="${p}.stateProvince" value="${esc(a?.stateProvince)}" autocomplete="address-level1"></label>
      <label>Postal code <input type="text" name="${p}.postalCode" value="${esc(a?.postalCode)}" autocomplete="postal-code"></label>
      <label>Country (2 letters) <input type="text" name="${p}.countryCode" value="${esc(a?.countryCode ?? "US")}" maxlength="2" autocomplete="country" required></label>`;
    const needsShipping = asksShippingAddress(s, cart.lineItems);
    // A quote on deposit terms: the card pays the deposit now; the balance becomes a Net-N invoice (quote-accept.service.ts).
    const deposit = s.depositAmount ?? null;
    const body = `${header}
<h1>Checkout</h1>
<table><thead><tr><th>Item</th><th class="num">Qty</th><th class="num">Amount</th></tr></thead>
<tbody>${rows}${totals}<tr><th colspan="2">Total</th><th class="num" id="total">${esc(money(cart.total, cart.currency))}</th></tr>${
      deposit !== null
        ? `<tr><td colspan="2">Deposit due today</td><td class="num" id="deposit">${esc(money(deposit, cart.currency))}</td></tr><tr><td colspan="2">Balance, invoiced (due in ${esc(s.balanceNetN ?? 30)} days)</td><td class="num" id="balance">${esc(money(cart.total - deposit, cart.currency))}</td></tr>`
        : ""
    }</tbody></table>
<form id="pay" data-session="${esc(s.id)}" data-return="${esc(s.returnUrl)}">
  <label>Email <input type="email" name="email" value="${esc(s.customerEmail ?? cart.customerEmail ?? "")}" required></label>
  ${needsShipping ? `<fieldset><legend>Shipping address</legend>${addr("shippingAddress", cart.shippingAddress)}</fieldset>` : ""}
  ${s.collectBilling ? `<fieldset><legend>Billing address</legend>${addr("billingAddress", cart.billingAddress)}</fieldset>` : ""}
  <fieldset><legend>Payment</legend>${methodInputs || '<p class="error">No payment method is available.</p>'}
    <div id="card-fields"><label>Card token (test processor: tok_visa, tok_card_declined, …) <input type="text" name="paymentToken" value="tok_visa"></label></div>
    <div id="net30-fields" hidden>
      <p class="muted" id="terms">${esc(NET30_TERMS)}</p>
      <label>Company <input type="text" name="companyName"></label>
      <label>Billing email <input type="email" name="billingEmail"></label>
      <label><input type="checkbox" name="acceptTerms"> I accept these terms</label>
    </div>
  </fieldset>
  <button type="submit" id="submit">${deposit !== null ? `Pay the deposit of ${esc(money(deposit, cart.currency))}` : `Pay ${esc(money(cart.total, cart.currency))}`}</button>
  <p id="result" role="status"></p>
</form>
<p><a id="cancel" href="${esc(s.cancelUrl)}">Cancel and return to ${esc(merchant.name || "the store")}</a></p>`;
    res.type("html").send(page(nonce, "Checkout", body, CLIENT_SCRIPT, extra));
  });
  return r;
}

/**
 * The application scripts' tags, each loaded from its content-addressed copy with `integrity` (the browser refuses
 * bytes that do not match), and before them the page's own reporter, which beacons each script's fate to
 * POST /api/v1/checkout-sessions/{id}/script-beacons.
 */
function applicationScripts(nonce: string, sessionId: string, scripts: PageScript[]) {
  if (scripts.length === 0) return {};
  const tag = (x: PageScript) => `<script src="${esc(x.url)}" integrity="${esc(x.integrity)}" crossorigin="anonymous" data-application-script="${esc(x.id)}"></script>`;
  const placed = (p: PageScript["placement"]) => scripts.filter((x) => x.placement === p).map(tag).join("");
  return {
    head: `<script nonce="${esc(nonce)}" data-session="${esc(sessionId)}">${BEACON_SCRIPT}</script>${placed("checkout_head")}`,
    end: placed("checkout_body"),
  };
}

// Runs in <head> before any application script. Capture listeners see each script element's load and error; an
// error on a script whose response arrived (a resource-timing entry with a 2xx status) is the integrity check
// refusing its bytes. Runtime errors thrown by a script, and CSP refusals of scripts, are reported too.
const BEACON_SCRIPT = `(() => {
  const url = "/api/v1/checkout-sessions/" + encodeURIComponent(document.currentScript.dataset.session) + "/script-beacons";
  const sent = new Set();
  const send = (body) => {
    const key = JSON.stringify(body);
    if (sent.has(key)) return;
    sent.add(key);
    fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: key, keepalive: true }).catch(() => {});
  };
  const tagOf = (el) => (el && el.tagName === "SCRIPT" && el.dataset && el.dataset.applicationScript ? el : null);
  const byUrl = (u) => (u ? [...document.querySelectorAll("script[data-application-script]")].find((s) => s.src === u) || null : null);
  document.addEventListener("load", (e) => { const s = tagOf(e.target); if (s) send({ type: "loaded", scriptId: s.dataset.applicationScript }); }, true);
  window.addEventListener("error", (e) => {
    const s = tagOf(e.target);
    if (s) {
      const entry = performance.getEntriesByName(s.src).pop();
      const arrived = entry && entry.responseStatus >= 200 && entry.responseStatus < 300;
      send(arrived ? { type: "blocked", reason: "integrity_mismatch", scriptId: s.dataset.applicationScript } : { type: "error", reason: "load_failed", scriptId: s.dataset.applicationScript });
      return;
    }
    const from = byUrl(e.filename);
    if (from) send({ type: "error", reason: "runtime_error", scriptId: from.dataset.applicationScript });
  }, true);
  document.addEventListener("securitypolicyviolation", (e) => {
    if (!/^script-src/.test(e.effectiveDirective)) return;
    const from = byUrl(e.sourceFile);
    const body = { type: "blocked", reason: "csp_violation", blockedUri: String(e.blockedURI || "").slice(0, 2048), violatedDirective: e.effectiveDirective };
    if (from) body.scriptId = from.dataset.applicationScript;
    if (body.scriptId || body.blockedUri) send(body);
  });
})();`;

// Plain browser script: builds the complete body from the form; for Net 30 it hashes the terms text it showed.
const CLIENT_SCRIPT = `
const ADDRESS_FIELDS = ${JSON.stringify(Object.keys(addressSchema.shape))};
const form = document.getElementById("pay");
const result = document.getElementById("result");
const sync = () => {
  const m = form.querySelector("input[name=paymentMethod]:checked");
  document.getElementById("card-fields").hidden = !m || m.value !== "card";
  document.getElementById("net30-fields").hidden = !m || m.value !== "net30";
};
form.addEventListener("change", sync); sync();
async function sha256(text) {
  const buf = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
form.addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const fd = new FormData(form);
  const body = { paymentMethod: fd.get("paymentMethod"), email: fd.get("email") };
  for (const p of ["shippingAddress", "billingAddress"]) {
    if (fd.get(p + ".addressLine1") === null) continue;
    const a = {};
    for (const k of ADDRESS_FIELDS) { const v = fd.get(p + "." + k); if (v) a[k] = v; }
    body[p] = a;
  }
  if (body.paymentMethod === "card") body.paymentToken = fd.get("paymentToken");
  if (body.paymentMethod === "net30") {
    if (!fd.get("acceptTerms")) { result.className = "error"; result.textContent = "Please accept the terms."; return; }
    body.net30Acceptance = { termsHash: await sha256(document.getElementById("terms").textContent), acceptedAt: new Date().toISOString(),
      companyName: fd.get("companyName"), billingEmail: fd.get("billingEmail") };
  }
  document.getElementById("submit").disabled = true;
  result.className = ""; result.textContent = "Processing…";
  const res = await fetch("/api/v1/checkout-sessions/" + form.dataset.session + "/complete", {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const json = await res.json().catch(() => ({}));
  if (res.ok) {
    const d = json.data;
    const outcome = { captured: "Payment received.", authorized: body.paymentMethod === "net30" ? "Invoice issued: your order is placed on terms." : "Payment authorized: you will be charged when the order ships.", processing: "Payment pending confirmation by your bank." }[d.paymentStatus] || "Order placed.";
    result.className = "ok"; result.textContent = outcome + " Order " + d.orderId + ". Returning you to the store…";
    result.dataset.orderId = d.orderId; result.dataset.paymentStatus = d.paymentStatus;
    const back = new URL(form.dataset.return); back.searchParams.set("checkout_session_id", form.dataset.session); back.searchParams.set("order_id", d.orderId);
    setTimeout(() => location.assign(back.toString()), 2500);
  }
  else { result.className = "error"; result.textContent = (json.error && json.error.message) || "Something went wrong"; document.getElementById("submit").disabled = false; }
});`;
