// The storefront flow over REST: cart -> lines -> shipping -> calculate -> session -> complete, on the test
// processor and on Net 30 terms; every checkout/order/payment error code; the real-PostgreSQL races.
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { FixedClock } from "../src/shared/clock";
import { termsHash } from "../src/checkout/checkout-complete.service";
import { findJob } from "../jobs/registry";
import { notStarted, pgTest, startPgApp, startTestApp, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";
import { until } from "./helpers/until";
import { Client as PgClient } from "pg";

type Api = ReturnType<typeof client>;
const ADDRESS = { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" };
const TERMS = "Net 30: pay within 30 days of the invoice date.";

async function cartWithLines(api: Api, demo: Pick<BootstrapResult, "apiKey" | "applicationId">) {
  const cart = await api("POST", "carts", { key: demo.apiKey, body: { applicationId: demo.applicationId, customerEmail: "buyer@example.com" } });
  expect(cart.status).toBe(201);
  const id = cart.body.data.id;
  for (const [name, unitPrice, quantity] of [["Widget", 1500, 2], ["Gadget", 2500, 1], ["Setup", 10000, 1]] as const) {
    const r = await api("POST", `carts/${id}/items`, { key: demo.apiKey, body: { name, unitPrice, quantity, ...(name === "Setup" ? { type: "service" } : {}) } });
    expect(r.status).toBe(201);
  }
  return id as string;
}

async function session(api: Api, demo: Pick<BootstrapResult, "apiKey" | "applicationId">, cartId: string, extra: Record<string, unknown> = {}) {
  const r = await api("POST", "checkout/sessions", { key: demo.apiKey, body: { applicationId: demo.applicationId, cartId, returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/cancel", ...extra } });
  expect(r.status).toBe(201);
  return r.body.data as { id: string; hostedUrl: string; allowedMethods: string[] };
}

const card = (token: string) => ({ paymentMethod: "card", paymentToken: token, shippingAddress: ADDRESS });

describe("on the default database", () => {
  let t: TestApp;
  let api: Api;
  let demo: BootstrapResult;
  let clock: FixedClock;
  beforeAll(async () => {
    clock = new FixedClock(new Date());
    t = (await startTestApp({ clock }))!;
    api = client(t.url);
    demo = await t.bootstrap();
    await api("PUT", "shipping-tax/settings", { key: demo.apiKey, body: { flatRates: [{ methodId: "std", displayName: "Standard", rateAmount: 700 }], taxRates: { US: { rateBps: 1000 } } } });
  });
  afterAll(() => t?.close());

  test("cart, 3 lines, shipping, calculate, session, complete with tok_visa -> order processing / captured", async () => {
    const cartId = await cartWithLines(api, demo);
    await api("PATCH", `carts/${cartId}`, { key: demo.apiKey, body: { shippingAddress: ADDRESS } });
    const calc = await api("POST", `shipping-tax/carts/${cartId}/calculate`, { key: demo.apiKey, body: { selectedShippingMethodId: "std", persist: true } });
    expect(calc.status).toBe(200);
    // subtotal 15500, shipping 700, tax 10% of 16200 = 1620
    expect(calc.body.data.totals).toMatchObject({ subtotal: 15500, shippingTotal: 700, taxTotal: 1620, total: 17820 });
    const s = await session(api, demo, cartId);
    expect(s.hostedUrl).toBe(`${t.url}/checkout/${s.id}`);
    const methods = await api("GET", `checkout-sessions/${s.id}/payment-methods`);
    // no customer and no allowedMethods: card only (Net-N is offered to a known customer, or when listed)
    expect(methods.body.data.methods.map((m: any) => m.method).sort()).toEqual(["card"]);
    const done = await api("POST", `checkout-sessions/${s.id}/complete`, { body: card("tok_visa") });
    expect(done.status).toBe(200);
    const order = await api("GET", `orders/${done.body.data.orderId}`, { key: demo.apiKey });
    expect(order.body.data).toMatchObject({ status: "processing", paymentStatus: "captured", total: 17820, capturedAmount: 17820, refundedAmount: 0, currency: "USD", email: "buyer@example.com" });
    expect(order.body.data.lineItems.map((l: any) => [l.name, l.total])).toEqual([["Widget", 3000], ["Gadget", 2500], ["Setup", 10000]]);
    const cart = await api("GET", `carts/${cartId}`, { key: demo.apiKey });
    expect(cart.body.data.status).toBe("converted");
    const types = (await t.deps.prisma.event.findMany({ where: { data: { path: ["orderId"], equals: done.body.data.orderId } } })).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(["order.created", "payment.captured", "order.updated", "cart.converted"]));
    expect(types.filter((x) => x === "order.created")).toHaveLength(1);
    const again = await api("POST", `checkout-sessions/${s.id}/complete`, { body: card("tok_visa") });
    expect(again.status).toBe(422);
    expect(again.body.error.code).toBe("session_not_open");
    const history = await api("GET", `orders/${done.body.data.orderId}/status-history`, { key: demo.apiKey });
    expect(history.body.data.map((h: any) => [h.fromStatus, h.toStatus])).toEqual([[null, "pending"], ["pending", "processing"]]);
  });

  test("tok_card_declined: 402 payment_failed, paymentStatus failed, status unchanged; a retry pays the same order", async () => {
    const s = await session(api, demo, await cartWithLines(api, demo));
    const declined = await api("POST", `checkout-sessions/${s.id}/complete`, { body: card("tok_card_declined") });
    expect(declined.status).toBe(402);
    expect(declined.body.error).toMatchObject({ code: "payment_failed", details: { reason: "card_declined" } });
    const orderId = declined.body.error.details.orderId;
    const o = await api("GET", `orders/${orderId}`, { key: demo.apiKey });
    expect(o.body.data).toMatchObject({ status: "pending", paymentStatus: "failed" });
    const ok = await api("POST", `checkout-sessions/${s.id}/complete`, { body: card("tok_visa") });
    expect(ok.status).toBe(200);
    expect(ok.body.data.orderId).toBe(orderId);
    expect((await api("GET", `orders/${orderId}`, { key: demo.apiKey })).body.data).toMatchObject({ status: "processing", paymentStatus: "captured" });
    expect((await api("GET", `orders/${orderId}/payments`, { key: demo.apiKey })).body.data.map((p: any) => p.status).sort()).toEqual(["captured", "failed"]);
  });

  test("tok_3ds_required -> processing, then resolved to captured", async () => {
    const s = await session(api, demo, await cartWithLines(api, demo));
    const r = await api("POST", `checkout-sessions/${s.id}/complete`, { body: card("tok_3ds_required") });
    expect(r.status).toBe(200);
    expect((await api("GET", `orders/${r.body.data.orderId}`, { key: demo.apiKey })).body.data).toMatchObject({ status: "pending", paymentStatus: "processing" });
    const resolved = await api("POST", `test-processor/payments/${r.body.data.paymentId}/resolve`, { key: demo.apiKey, body: { outcome: "captured" } });
    expect(resolved.status).toBe(200);
    expect((await api("GET", `orders/${r.body.data.orderId}`, { key: demo.apiKey })).body.data).toMatchObject({ status: "processing", paymentStatus: "captured" });
  });

  test("tok_visa_authorize -> authorized; partial capture of a payment; POST /orders/{id}/capture captures the rest", async () => {
    const s = await session(api, demo, await cartWithLines(api, demo));
    const r = await api("POST", `checkout-sessions/${s.id}/complete`, { body: card("tok_visa_authorize") });
    expect((await api("GET", `orders/${r.body.data.orderId}`, { key: demo.apiKey })).body.data).toMatchObject({ status: "processing", paymentStatus: "authorized" });
    const cap = await api("POST", `orders/${r.body.data.orderId}/capture`, { key: demo.apiKey, body: {} });
    expect(cap.status).toBe(200);
    expect(cap.body.data).toMatchObject({ paymentStatus: "captured", capturedAmount: 15500 });
    const tx = await api("GET", `payments/${r.body.data.paymentId}/transactions`, { key: demo.apiKey });
    expect(tx.body.data.map((x: any) => x.type)).toEqual(["authorization", "capture"]);

    const s2 = await session(api, demo, await cartWithLines(api, demo));
    const r2 = await api("POST", `checkout-sessions/${s2.id}/complete`, { body: card("tok_visa_authorize") });
    const partial = await api("POST", `payments/${r2.body.data.paymentId}/capture`, { key: demo.apiKey, body: { amount: 5000 } });
    expect(partial.body.data).toMatchObject({ status: "captured", capturedAmount: 5000, authorizedAmount: 15500 });
    expect((await api("GET", `orders/${r2.body.data.orderId}`, { key: demo.apiKey })).body.data).toMatchObject({ paymentStatus: "partially_paid", capturedAmount: 5000 });
    expect((await api("POST", `payments/${r2.body.data.paymentId}/capture`, { key: demo.apiKey, body: {} })).body.error.code).toBe("payment_not_capturable");
  });

  test("the order links the buyer's customer: created (customer.created) on a first order from an address, the same one after; Net-N from the customer", async () => {
    const email = `first-${Date.now()}@example.com`;
    const first = await session(api, demo, await cartWithLines(api, demo), { customerEmail: email });
    const r1 = await api("POST", `checkout-sessions/${first.id}/complete`, { body: card("tok_visa") });
    expect(r1.status).toBe(200);
    const o1 = (await api("GET", `orders/${r1.body.data.orderId}`, { key: demo.apiKey })).body.data;
    const customers = await t.deps.prisma.customer.findMany({ where: { applicationId: demo.applicationId, email } });
    expect(customers).toHaveLength(1);
    expect(o1).toMatchObject({ email, customerId: customers[0].id });
    const created = await t.deps.prisma.event.findMany({ where: { type: "customer.created", data: { path: ["customerId"], equals: customers[0].id } } });
    expect(created).toHaveLength(1);
    const orderCreated = await t.deps.prisma.event.findFirst({ where: { type: "order.created", data: { path: ["orderId"], equals: o1.id } } });
    expect(orderCreated?.data).toMatchObject({ customerId: customers[0].id, total: 15500 });

    // the customer's standing terms apply when the session names none
    await t.deps.prisma.customer.update({ where: { id: customers[0].id }, data: { netTermsDays: 60 } });
    const second = await session(api, demo, await cartWithLines(api, demo), { customerEmail: email.toUpperCase(), allowedMethods: ["net30"] });
    const acceptance = { termsHash: termsHash(TERMS), acceptedAt: new Date().toISOString(), companyName: "Acme", billingEmail: "ap@acme.test" };
    const r2 = await api("POST", `checkout-sessions/${second.id}/complete`, { body: { paymentMethod: "net30", shippingAddress: ADDRESS, net30Acceptance: acceptance } });
    expect(r2.status).toBe(200);
    expect((await api("GET", `orders/${r2.body.data.orderId}`, { key: demo.apiKey })).body.data.customerId).toBe(customers[0].id);
    expect((await api("GET", `payments/${r2.body.data.paymentId}`, { key: demo.apiKey })).body.data).toMatchObject({ method: "net30", net_n: 60, netNSource: "customer" });
    expect(await t.deps.prisma.customer.count({ where: { applicationId: demo.applicationId, email } })).toBe(1);
  });

  test("Net 30: invoice issued (authorized, dueDate), then marked paid by capture", async () => {
    const s = await session(api, demo, await cartWithLines(api, demo), { allowedMethods: ["net30"], paymentTerms: { netN: 45 } });
    const bad = await api("POST", `checkout-sessions/${s.id}/complete`, { body: { paymentMethod: "net30", shippingAddress: ADDRESS, net30Acceptance: { termsHash: "abc", acceptedAt: new Date().toISOString(), companyName: "Acme", billingEmail: "ap@acme.test" } } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.issues[0].path).toEqual(["net30Acceptance", "termsHash"]);
    const acceptance = { termsHash: termsHash(TERMS), acceptedAt: new Date().toISOString(), companyName: "Acme", billingEmail: "ap@acme.test" };
    const r = await api("POST", `checkout-sessions/${s.id}/complete`, { body: { paymentMethod: "net30", shippingAddress: ADDRESS, net30Acceptance: acceptance } });
    expect(r.status).toBe(200);
    const p = await api("GET", `payments/${r.body.data.paymentId}`, { key: demo.apiKey });
    const due = new Date(clock.now().getTime() + 45 * 86_400_000).toISOString().slice(0, 10);
    expect(p.body.data).toMatchObject({ status: "authorized", method: "net30", net_n: 45, netNSource: "cart_override", metadata: { dueDate: due, net30Acceptance: { termsHash: acceptance.termsHash, companyName: "Acme" } } });
    const list = await api("GET", `payments?method=net30&due_from=${due}&due_to=${due}`, { key: demo.apiKey });
    expect(list.body.data.map((x: any) => x.id)).toContain(r.body.data.paymentId);
    const paid = await api("POST", `payments/${r.body.data.paymentId}/capture`, { key: demo.apiKey, body: {} });
    expect(paid.body.data.status).toBe("captured");
    expect((await api("GET", `orders/${r.body.data.orderId}`, { key: demo.apiKey })).body.data.paymentStatus).toBe("captured");
  });

  test("refunds: partial then full; over the balance 422 refund_not_allowed; a claimed refund 409; mark-failed rules", async () => {
    const s = await session(api, demo, await cartWithLines(api, demo));
    const r = await api("POST", `checkout-sessions/${s.id}/complete`, { body: card("tok_visa") });
    const pid = r.body.data.paymentId;
    const part = await api("POST", `payments/${pid}/refund`, { key: demo.apiKey, body: { amount: 500 } });
    expect(part.body.data).toMatchObject({ status: "partially_refunded", refundedAmount: 500 });
    expect((await api("GET", `orders/${r.body.data.orderId}`, { key: demo.apiKey })).body.data).toMatchObject({ paymentStatus: "partially_refunded", refundedAmount: 500 });
    const over = await api("POST", `payments/${pid}/refund`, { key: demo.apiKey, body: { amount: 999_999 } });
    expect(over.status).toBe(422);
    expect(over.body.error.code).toBe("refund_not_allowed");
    const huge = await api("POST", `payments/${pid}/refund`, { key: demo.apiKey, body: { amount: 3_000_000_000 } });
    expect([huge.status, huge.body.error.code, huge.body.error.details.issues[0].path]).toEqual([422, "validation_error", ["amount"]]);
    await t.deps.prisma.payment.update({ where: { id: pid }, data: { refundingAmount: 100 } });
    const busy = await api("POST", `payments/${pid}/refund`, { key: demo.apiKey, body: { amount: 100 } });
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe("refund_already_in_progress");
    await t.deps.prisma.payment.update({ where: { id: pid }, data: { refundingAmount: 0 } });
    const rest = await api("POST", `payments/${pid}/refund`, { key: demo.apiKey, body: {} });
    expect(rest.body.data).toMatchObject({ status: "refunded", refundedAmount: 15500 });
    expect((await api("POST", `payments/${pid}/refund`, { key: demo.apiKey, body: {} })).body.error.code).toBe("refund_not_allowed");
    const nf = await api("POST", `payments/${pid}/mark-failed`, { key: demo.apiKey, body: { reason: "bank said no" } });
    expect(nf.status).toBe(422);
    expect(nf.body.error.code).toBe("payment_not_failable");

    const s2 = await session(api, demo, await cartWithLines(api, demo));
    const r2 = await api("POST", `checkout-sessions/${s2.id}/complete`, { body: card("tok_3ds_required") });
    const mf = await api("POST", `payments/${r2.body.data.paymentId}/mark-failed`, { key: demo.apiKey, body: { reason: "abandoned 3DS" } });
    expect(mf.body.data).toMatchObject({ status: "failed", error: { code: "manually_marked_failed", message: "abandoned 3DS" } });
  });

  test("checkout error codes", async () => {
    const cartId = await cartWithLines(api, demo);
    const s = await session(api, demo, cartId, { allowedMethods: ["card"] });
    const codes: [string, unknown, number, string][] = [
      [`checkout-sessions/00000000-0000-4000-8000-000000000000/complete`, card("tok_visa"), 404, "session_not_found"],
      [`checkout-sessions/${s.id}/complete`, { paymentMethod: "net30" }, 422, "payment_method_not_allowed"],
      [`checkout-sessions/${s.id}/complete`, { paymentMethod: "card", shippingAddress: ADDRESS }, 422, "missing_required_field"],
      [`checkout-sessions/${s.id}/complete`, { paymentMethod: "card", paymentToken: "tok_visa" }, 422, "missing_required_field"],
      [`checkout-sessions/${s.id}/complete`, { paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: { ...ADDRESS, street: "x" } }, 422, "validation_error"],
    ];
    for (const [path, body, status, code] of codes) {
      const r = await api("POST", path, { body });
      expect({ path, status: r.status, code: r.body.error?.code }).toEqual({ path, status, code });
    }
    expect((await api("POST", `checkout-sessions/${s.id}/complete`, { body: { paymentMethod: "net30" } })).body.error.details.allowedMethods).toEqual(["card"]);
    await t.deps.prisma.checkoutSession.update({ where: { id: s.id }, data: { completionStartedAt: clock.now() } });
    const busy = await api("POST", `checkout-sessions/${s.id}/complete`, { body: card("tok_visa") });
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe("checkout_in_progress");
    await t.deps.prisma.checkoutSession.update({ where: { id: s.id }, data: { completionStartedAt: null } });

    const s2 = await session(api, demo, await cartWithLines(api, demo));
    clock.advance(t.deps.config.CHECKOUT_SESSION_TTL_MS + 1000);
    const expired = await api("POST", `checkout-sessions/${s2.id}/complete`, { body: card("tok_visa") });
    expect(expired.status).toBe(410);
    expect(expired.body.error.code).toBe("session_expired");

    const disc = await api("POST", "checkout/sessions", { key: demo.apiKey, body: { applicationId: demo.applicationId, cartId: await cartWithLines(api, demo), returnUrl: "https://a.test", cancelUrl: "https://a.test", discountCode: "SAVE10" } });
    expect(disc.status).toBe(422);
    expect(disc.body.error.code).toBe("discount_invalid");

    const connectors = await api("GET", "connectors", { key: demo.apiKey });
    const cardConn = connectors.body.data.filter((c: any) => c.kind === "card" && c.status === "active");
    const s3 = await session(api, demo, await cartWithLines(api, demo));
    for (const c of cardConn) await api("DELETE", `connectors/${c.id}`, { key: demo.apiKey });
    const noConn = await api("POST", `checkout-sessions/${s3.id}/complete`, { body: card("tok_visa") });
    expect(noConn.status).toBe(422);
    expect(noConn.body.error.code).toBe("no_payment_connection");
    await api("POST", "connectors", { key: demo.apiKey, body: { kind: "card", provider: "test" } });
  });

  test("expiry job: session expired, cart abandoned with the recovery URL; overdue Net-N invoices flagged once", async () => {
    await t.deps.prisma.application.update({ where: { id: demo.applicationId }, data: { settings: { cartRecoveryUrlTemplate: "https://shop.example.com/recover/{cartId}" } } });
    const jobs = { deps: t.deps, deliveries: t.deliveries };
    await findJob("checkout-session-expiry")!.run(jobs); // sessions earlier tests left to lapse
    const cartId = await cartWithLines(api, demo);
    const s = await session(api, demo, cartId);
    expect(await findJob("checkout-session-expiry")!.run(jobs)).toMatch(/^expired 0 /);
    clock.advance(t.deps.config.CHECKOUT_SESSION_TTL_MS + 1);
    expect(await findJob("checkout-session-expiry")!.run(jobs)).toMatch(/^expired [1-9]\d* /);
    expect((await t.deps.prisma.checkoutSession.findUniqueOrThrow({ where: { id: s.id } })).status).toBe("expired");
    expect((await api("GET", `carts/${cartId}`, { key: demo.apiKey })).body.data.status).toBe("abandoned");
    const ev = await t.deps.prisma.event.findFirstOrThrow({ where: { type: "cart.abandoned", data: { path: ["cartId"], equals: cartId } } });
    expect(ev.data).toMatchObject({ recoveryUrl: `https://shop.example.com/recover/${cartId}` });
    expect((await api("POST", `checkout-sessions/${s.id}/complete`, { body: card("tok_visa") })).body.error.code).toBe("session_expired");
    // A recovery link: a new session on the abandoned cart reopens it and can complete.
    const again = await session(api, demo, cartId);
    expect((await api("GET", `carts/${cartId}`, { key: demo.apiKey })).body.data.status).toBe("open");
    expect((await api("POST", `checkout-sessions/${again.id}/complete`, { body: card("tok_visa") })).status).toBe(200);

    const n = await session(api, demo, await cartWithLines(api, demo), { allowedMethods: ["net30"], paymentTerms: { netN: 10 } });
    const acceptance = { termsHash: termsHash(TERMS), acceptedAt: new Date().toISOString(), companyName: "Acme", billingEmail: "ap@acme.test" };
    const r = await api("POST", `checkout-sessions/${n.id}/complete`, { body: { paymentMethod: "net30", shippingAddress: ADDRESS, net30Acceptance: acceptance } });
    const overdue = () => t.deps.prisma.event.count({ where: { type: "invoice.overdue", data: { path: ["paymentId"], equals: r.body.data.paymentId } } });
    await findJob("invoice-overdue")!.run(jobs);
    expect(await overdue()).toBe(0);
    clock.advance(11 * 86_400_000);
    await findJob("invoice-overdue")!.run(jobs);
    await findJob("invoice-overdue")!.run(jobs);
    expect(await overdue()).toBe(1);
    expect((await api("GET", `payments/${r.body.data.paymentId}`, { key: demo.apiKey })).body.data.status).toBe("authorized");
    const aged = await api("GET", "payments?aging=0_30", { key: demo.apiKey });
    expect(aged.body.data.map((p: any) => p.id)).toContain(r.body.data.paymentId);
    expect((await api("GET", "payments?aging=31_60", { key: demo.apiKey })).body.data.map((p: any) => p.id)).not.toContain(r.body.data.paymentId);
  });

  test("embedded checkout: embed-token creates a one-line session; allowedMethods is refused; the browser re-mints", async () => {
    const r = await api("POST", "checkout-sessions/embed-token", { key: demo.apiKey, body: { amount: 2599, currency: "USD", externalCartId: "ext-1" } });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ checkoutSessionId: expect.any(String), embedToken: expect.stringMatching(/^emb_/), hostedUrl: expect.stringContaining("/checkout/"), embedUrl: expect.stringContaining("embed=1") });
    const again = await api("GET", `checkout-sessions/${r.body.data.checkoutSessionId}/embed-token`);
    expect(again.body.data).toMatchObject({ amount: 2599, currency: "USD", environment: "sandbox" });
    expect(again.body.data.embedToken).not.toBe(r.body.data.embedToken);
    const refused = await api("POST", "checkout-sessions/embed-token", { key: demo.apiKey, body: { amount: 100, currency: "USD", allowedMethods: ["card"] } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe("allowed_methods_unsupported");
    expect((await api("POST", "checkout-sessions/embed-token", { key: demo.apiKey, body: { amount: 100, currency: "EUR" } })).body.error.code).toBe("currency_mismatch");
    const done = await api("POST", `checkout-sessions/${r.body.data.checkoutSessionId}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa", email: "e@example.com" } });
    expect(done.status).toBe(200);
    expect((await api("GET", `orders/${done.body.data.orderId}`, { key: demo.apiKey })).body.data).toMatchObject({ total: 2599, paymentStatus: "captured" });
    expect((await api("GET", `checkout-sessions/${r.body.data.checkoutSessionId}/embed-token`)).body.error.code).toBe("session_not_open");
  });

  test("two sessions on one cart: the second cannot order (or charge) the cart again", async () => {
    const cartId = await cartWithLines(api, demo);
    const first = await session(api, demo, cartId);
    const second = await session(api, demo, cartId);
    const paid = await api("POST", `checkout-sessions/${first.id}/complete`, { body: card("tok_visa") });
    expect(paid.status).toBe(200);
    const again = await api("POST", `checkout-sessions/${second.id}/complete`, { body: card("tok_visa") });
    expect([again.status, again.body.error.code, again.body.error.details?.reason]).toEqual([422, "session_not_open", "cart_already_ordered"]);
    expect(await t.deps.prisma.order.count({ where: { cartId } })).toBe(1);
    expect(await t.deps.prisma.payment.count({ where: { checkoutSessionId: second.id } })).toBe(0);
    // the refused session is free again (its claim released), and still refused
    expect((await api("POST", `checkout-sessions/${second.id}/complete`, { body: card("tok_visa") })).body.error.details?.reason).toBe("cart_already_ordered");
  });

  test("expiry job: a session whose completion claim went stale (its process died) still expires", async () => {
    const cartId = await cartWithLines(api, demo);
    const s = await session(api, demo, cartId);
    const jobs = { deps: t.deps, deliveries: t.deliveries };
    await t.deps.prisma.checkoutSession.update({ where: { id: s.id }, data: { completionStartedAt: clock.now() } });
    clock.advance(t.deps.config.CHECKOUT_SESSION_TTL_MS + 1);
    await findJob("checkout-session-expiry")!.run(jobs);
    expect((await t.deps.prisma.checkoutSession.findUniqueOrThrow({ where: { id: s.id } })).status).toBe("expired");
    expect((await api("GET", `carts/${cartId}`, { key: demo.apiKey })).body.data.status).toBe("abandoned");
  });

  test("orders and payments lists with filters; cross-tenant ids answer 404", async () => {
    const all = await api("GET", "orders?limit=100", { key: demo.apiKey });
    expect(all.status).toBe(200);
    expect(all.body.data.every((o: any) => o.capturedAmount === undefined)).toBe(true);
    const captured = await api("GET", "orders?paymentStatus=captured&limit=100", { key: demo.apiKey });
    expect(captured.body.data.length).toBeGreaterThan(0);
    expect(captured.body.data.every((o: any) => o.paymentStatus === "captured")).toBe(true);
    const pending = await api("GET", "orders?status=pending", { key: demo.apiKey });
    expect(pending.body.data.every((o: any) => o.status === "pending")).toBe(true);
    expect((await api("GET", "orders?status=shipped", { key: demo.apiKey })).status).toBe(422);
    const pays = await api("GET", "payments?status=captured&status=refunded&limit=100", { key: demo.apiKey });
    expect(pays.body.data.every((p: any) => ["captured", "refunded"].includes(p.status))).toBe(true);
    const ranged = await api("GET", "payments?amount_min=15500&amount_max=15500", { key: demo.apiKey });
    expect(ranged.body.data.every((p: any) => p.amount === 15500)).toBe(true);
    for (const [q, field] of [["amount_min=3000000000", "amount_min"], ["amount_max=3000000000", "amount_max"], ["due_from=0000-01-01", "due_from"], ["due_to=2024-02-31", "due_to"], ["due_from=2024-13-01", "due_from"]]) {
      const bad = await api("GET", `payments?${q}`, { key: demo.apiKey });
      expect([q, bad.status, bad.body.error?.code, bad.body.error?.details?.issues?.[0]?.path]).toEqual([q, 422, "validation_error", ["query", field]]);
    }
    expect((await api("GET", "payments?due_from=0001-01-01&due_to=2024-02-29", { key: demo.apiKey })).status).toBe(200);

    const other = await t.otherWorkspace("orders-other");
    const o = all.body.data[0];
    const p = (await api("GET", `orders/${o.id}/payments`, { key: demo.apiKey })).body.data[0];
    for (const [m, path] of [["GET", `orders/${o.id}`], ["GET", `orders/${o.id}/payments`], ["GET", `orders/${o.id}/status-history`], ["POST", `orders/${o.id}/capture`], ["GET", `payments/${p.id}`], ["GET", `payments/${p.id}/transactions`], ["POST", `payments/${p.id}/capture`], ["POST", `payments/${p.id}/refund`], ["POST", `payments/${p.id}/mark-failed`]] as const) {
      const r = await api(m, path, { key: other.apiKey, body: m === "POST" ? (path.endsWith("mark-failed") ? { reason: "x" } : {}) : undefined });
      expect({ path, status: r.status }).toEqual({ path, status: 404 });
    }
    expect((await api("GET", "orders", { key: other.apiKey })).body.data).toEqual([]);
    // Sessions: another tenant's cart or application id is unknown to this key.
    const foreignCart = await cartWithLines(api, demo);
    const otherApp = (await api("GET", "whoami", { key: other.apiKey })).body.data.application.id;
    const viaCart = await api("POST", "checkout/sessions", { key: other.apiKey, body: { applicationId: otherApp, cartId: foreignCart, returnUrl: "https://a.test", cancelUrl: "https://a.test" } });
    expect(viaCart.status).toBe(404);
    expect(viaCart.body.error.code).toBe("cart_not_found");
    const viaApp = await api("POST", "checkout/sessions", { key: other.apiKey, body: { applicationId: demo.applicationId, cartId: foreignCart, returnUrl: "https://a.test", cancelUrl: "https://a.test" } });
    expect(viaApp.status).toBe(404);
    // a customer of another tenant cannot be attached to a session
    const foreignCustomer = (await api("POST", "customers", { key: other.apiKey, body: { email: "theirs@example.com" } })).body.data;
    const viaCustomer = await api("POST", "checkout/sessions", { key: demo.apiKey, body: { applicationId: demo.applicationId, cartId: await cartWithLines(api, demo), returnUrl: "https://a.test", cancelUrl: "https://a.test", customer: { customerId: foreignCustomer.id } } });
    expect([viaCustomer.status, viaCustomer.body.error?.code]).toEqual([404, "not_found"]);
    expect((await api("GET", "payments", { key: other.apiKey })).body.data).toEqual([]);
  });
});

describe("on the real PostgreSQL", () => {
  let t: TestApp | null;
  let api: Api;
  let demo: BootstrapResult;
  beforeAll(async () => {
    t = await startPgApp();
    if (!t) return; // no PostgreSQL: every test below is registered as skipped
    api = client(t.url);
    demo = await t.bootstrap();
  });
  afterAll(() => t?.close());

  pgTest("50 parallel completes of one session: exactly one order and one capture", async () => {
    if (!t) throw notStarted();
    const s = await session(api, demo, await cartWithLines(api, demo));
    const results = await Promise.all(Array.from({ length: 50 }, () => api("POST", `checkout-sessions/${s.id}/complete`, { body: card("tok_visa") })));
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) expect(["checkout_in_progress", "session_not_open"]).toContain(r.body.error.code);
    expect(await t.deps.prisma.order.count({ where: { checkoutSessionId: s.id } })).toBe(1);
    const payments = await t.deps.prisma.payment.findMany({ where: { checkoutSessionId: s.id } });
    expect(payments.filter((p) => p.status === "captured")).toHaveLength(1);
    expect(await t.deps.prisma.transaction.count({ where: { paymentId: { in: payments.map((p) => p.id) }, type: "capture" } })).toBe(1);
  });

  pgTest("10 sessions on one cart completed in parallel: one order, one capture", async () => {
    if (!t) throw notStarted();
    // a returning buyer, so each complete tries the one-statement path first (checkout.service.ts placeOrderAtOnce):
    // those that lose to another session's order release their claim and answer from the transaction
    expect(await t.deps.prisma.customer.count({ where: { applicationId: demo.applicationId, email: "buyer@example.com" } })).toBe(1);
    const cartId = await cartWithLines(api, demo);
    const sessions = [];
    for (let i = 0; i < 10; i++) sessions.push(await session(api, demo, cartId));
    const results = await Promise.all(sessions.map((x) => api("POST", `checkout-sessions/${x.id}/complete`, { body: card("tok_visa") })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) expect([r.status, r.body.error.details?.reason]).toEqual([422, "cart_already_ordered"]);
    expect(await t.deps.prisma.order.count({ where: { cartId } })).toBe(1);
    const rows = await t.deps.prisma.checkoutSession.findMany({ where: { id: { in: sessions.map((x) => x.id) } }, select: { status: true, completionStartedAt: true } });
    expect(rows.filter((r) => r.status === "completed")).toHaveLength(1);
    expect(rows.filter((r) => r.status !== "completed" && r.completionStartedAt !== null)).toEqual([]);
    expect(await t.deps.prisma.payment.count({ where: { checkoutSessionId: { in: sessions.map((x) => x.id) }, status: "captured" } })).toBe(1);
  });

  pgTest("a returning buyer's one-statement order that loses the cart to an order committed meanwhile releases its claim", async () => {
    if (!t) throw notStarted();
    // a returning buyer (the customer exists), so complete tries the one-statement path (placeOrderAtOnce)
    expect(await t.deps.prisma.customer.count({ where: { applicationId: demo.applicationId, email: "buyer@example.com" } })).toBe(1);
    const cartId = await cartWithLines(api, demo);
    const s = await session(api, demo, cartId);
    // another order for the cart, inserted and not yet committed: the statement's snapshot does not see it, so it
    // claims the session, and its order insert waits on the cart's unique index until this commits, then does nothing
    const blocker = new PgClient({ connectionString: t.databaseUrl });
    await blocker.connect();
    try {
      await blocker.query("BEGIN");
      await blocker.query(
        `INSERT INTO "Order" (id, "applicationId", "environmentId", "cartId", status, currency, subtotal, total, "createdAt", "updatedAt")
         VALUES (gen_random_uuid(), $1, $2, $3, 'pending', 'USD', 1, 1, now(), now())`,
        [demo.applicationId, demo.environments.sandbox.id, cartId],
      );
      const pending = api("POST", `checkout-sessions/${s.id}/complete`, { body: card("tok_visa") });
      await until(
        async () => (await t!.deps.prisma.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%completionStartedAt%'`)[0].n,
        (n) => n === 1,
      );
      await blocker.query("COMMIT");
      const r = await pending;
      expect([r.status, r.body.error?.code, r.body.error?.details?.reason]).toEqual([422, "session_not_open", "cart_already_ordered"]);
    } finally {
      await blocker.end();
    }
    // the claim the statement committed was released: the session is open and unclaimed, and holds no order
    const row = await t.deps.prisma.checkoutSession.findUniqueOrThrow({ where: { id: s.id } });
    expect({ status: row.status, claimed: row.completionStartedAt !== null, orderId: row.orderId }).toEqual({ status: "open", claimed: false, orderId: null });
    expect(await t.deps.prisma.payment.count({ where: { checkoutSessionId: s.id } })).toBe(0);
    expect(await t.deps.prisma.event.count({ where: { type: "order.created", data: { path: ["checkoutSessionId"], equals: s.id } } })).toBe(0);
  });

  pgTest("20 parallel refunds on one payment never refund more than was captured", async () => {
    if (!t) throw notStarted();
    const s = await session(api, demo, await cartWithLines(api, demo));
    const r = await api("POST", `checkout-sessions/${s.id}/complete`, { body: card("tok_visa") });
    const pid = r.body.data.paymentId;
    const results = await Promise.all(Array.from({ length: 20 }, () => api("POST", `payments/${pid}/refund`, { key: demo.apiKey, body: { amount: 4000 } })));
    for (const x of results) expect([200, 409, 422]).toContain(x.status);
    const p = await t.deps.prisma.payment.findUniqueOrThrow({ where: { id: pid } });
    expect(p.refundedAmount).toBeLessThanOrEqual(p.capturedAmount);
    expect(p.refundedAmount).toBe(results.filter((x) => x.status === 200).length * 4000);
    expect(p.refundingAmount).toBe(0);
    const refunds = await t.deps.prisma.transaction.findMany({ where: { paymentId: pid, type: "refund", status: "succeeded" } });
    expect(refunds.reduce((a, x) => a + x.amount, 0)).toBe(p.refundedAmount);
  });
});
