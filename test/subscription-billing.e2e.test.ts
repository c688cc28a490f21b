// Subscriptions over REST on a real database with a fixed clock: recurring checkout (card vaulted, trial once per
// plan), a simulated year of renewals, the dunning ladder to unpaid, the wallet's retry, pending plan changes,
// proration, cancel/resume, order cancellation, every error code, tenancy and scopes.
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { FixedClock } from "../src/shared/clock";
import { findJob } from "../jobs/registry";
import { prorate } from "../src/subscriptions/subscription-changes.service";
import { retrySubscriptionCharge } from "../src/subscriptions/renewals.service";
import { moveSubscription, type SubscriptionWhere } from "../src/subscriptions/subscription.machine";
import { makeCtx } from "../src/shared/context";
import { startTestApp, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";

type Api = ReturnType<typeof client>;
const DAY = 86_400_000;
const ADDRESS = { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" };
const START = new Date("2026-01-15T10:00:00.000Z");

let t: TestApp;
let api: Api;
let demo: BootstrapResult;
let clock: FixedClock;
let seq = 0;

beforeAll(async () => {
  clock = new FixedClock(START);
  t = (await startTestApp({ clock }))!;
  api = client(t.url);
  demo = await t.bootstrap();
});
afterAll(() => t?.close());

const runJob = () => findJob("subscription-renewal")!.run({ deps: t.deps, deliveries: t.deliveries });

async function subscribe(recurring: Record<string, unknown>, email = `buyer${++seq}@example.com`, shippedLine = false) {
  const cart = await api("POST", "carts", { key: demo.apiKey, body: { applicationId: demo.applicationId, customerEmail: email } });
  expect(cart.status).toBe(201);
  if (shippedLine) {
    expect((await api("POST", `carts/${cart.body.data.id}/items`, { key: demo.apiKey, body: { name: "Starter box", unitPrice: 2000, quantity: 1 } })).status).toBe(201);
  }
  const s = await api("POST", "checkout/sessions", {
    key: demo.apiKey,
    body: { applicationId: demo.applicationId, cartId: cart.body.data.id, returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/no", recurring },
  });
  expect(s.status).toBe(201);
  expect(s.body.data.allowedMethods).toEqual(["card"]);
  const done = await api("POST", `checkout-sessions/${s.body.data.id}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: ADDRESS } });
  expect(done.status).toBe(200);
  expect(done.body.data.subscriptionId).toEqual(expect.any(String));
  return { ...done.body.data, email } as { orderId: string; paymentId: string; subscriptionId: string; email: string };
}

const getSub = async (id: string) => (await api("GET", `subscriptions/${id}`, { key: demo.apiKey })).body.data;
const setCard = (subscriptionId: string, token: string) =>
  t.deps.prisma.$executeRaw`UPDATE "SavedCard" SET "processorReference" = ${token} WHERE "customerId" = (SELECT "customerId" FROM "Subscription" WHERE id = ${subscriptionId}::uuid)`;
const eventsOf = async (subscriptionId: string) =>
  (await t.deps.prisma.event.findMany({ where: { data: { path: ["subscriptionId"], equals: subscriptionId } }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] })).map((e) => e.type).filter((x) => x.startsWith("subscription."));

describe("recurring checkout", () => {
  test("an empty cart synthesizes the plan's line; the card is vaulted as the default; the subscription is active", async () => {
    clock.set(START);
    const r = await subscribe({ planReference: "pro", planName: "Pro", interval: "monthly", amount: 1500, quantity: 2, mode: "auto" });
    const order = (await api("GET", `orders/${r.orderId}`, { key: demo.apiKey })).body.data;
    expect(order).toMatchObject({ total: 3000, capturedAmount: 3000, paymentStatus: "captured" });
    expect(order.lineItems).toEqual([expect.objectContaining({ type: "subscription", name: "Pro", unitPrice: 1500, quantity: 2 })]);
    expect((await t.deps.prisma.order.findUniqueOrThrow({ where: { id: r.orderId } })).subscriptionId).toBe(r.subscriptionId);
    const sub = await getSub(r.subscriptionId);
    expect(sub).toMatchObject({
      status: "active", planReference: "pro", planName: "Pro", amount: 1500, quantity: 2, currency: "USD", interval: "monthly",
      currentPeriodEnd: "2026-02-15T10:00:00.000Z", failureCount: 0, cancelAtPeriodEnd: false, pendingPlanReference: null, pendingAmount: null,
    });
    expect(sub.paymentMethod).toMatchObject({ id: expect.stringMatching(/^cpm_/), cardBrand: "visa", cardLastFour: "4242" });
    const card = await t.deps.prisma.savedCard.findUniqueOrThrow({ where: { id: sub.paymentMethod.id } });
    expect(card).toMatchObject({ isDefault: true, chargeable: true, source: "checkout", processorReference: expect.stringMatching(/^testvault_tok_visa_/) });
    expect((await eventsOf(r.subscriptionId)).sort()).toEqual(["subscription.activated", "subscription.created"]);
    const created = await t.deps.prisma.event.findFirstOrThrow({ where: { type: "subscription.created", data: { path: ["subscriptionId"], equals: r.subscriptionId } } });
    expect((created.data as any).customer).toEqual({ id: sub.customerId, email: r.email });
    // a second recurring checkout demotes the first default card
    const history = await t.deps.prisma.subscriptionStatusHistory.findMany({ where: { subscriptionId: r.subscriptionId } });
    expect(history.map((h) => [h.fromStatus, h.toStatus])).toEqual([[null, "active"]]);
  });

  test("a trial: trialing until trialEnd with nothing charged now, once per customer per plan", async () => {
    clock.set(START);
    const email = "trial@example.com";
    const r = await subscribe({ planReference: "team", interval: "monthly", amount: 5000, trialDays: 14, mode: "auto" }, email);
    const sub = await getSub(r.subscriptionId);
    expect(sub).toMatchObject({ status: "trialing", trialEnd: "2026-01-29T10:00:00.000Z", currentPeriodEnd: "2026-01-29T10:00:00.000Z" });
    expect((await api("GET", `orders/${r.orderId}`, { key: demo.apiKey })).body.data).toMatchObject({ total: 0 });
    const elig = await api("GET", `customers/${sub.customerId}/trial-eligibility?planReference=team`, { key: demo.apiKey });
    expect(elig.status).toBe(200);
    expect(elig.body.data).toEqual({ eligible: false, reason: "trial_already_used" });
    expect((await api("GET", `customers/${sub.customerId}/trial-eligibility?planReference=other`, { key: demo.apiKey })).body.data).toEqual({ eligible: true, reason: null });
    // the same customer again: no second trial, charged now
    const again = await subscribe({ planReference: "team", interval: "monthly", amount: 5000, trialDays: 14, mode: "auto" }, email);
    expect((await getSub(again.subscriptionId)).status).toBe("active");
    expect((await api("GET", `orders/${again.orderId}`, { key: demo.apiKey })).body.data).toMatchObject({ total: 5000, capturedAmount: 5000 });
    const cards = await t.deps.prisma.savedCard.findMany({ where: { customerId: sub.customerId } });
    expect(cards.filter((c) => c.isDefault)).toHaveLength(1);
    expect(cards).toHaveLength(2);
    // the trial ends: the first charge
    clock.set(new Date("2026-01-29T10:00:01.000Z"));
    await runJob();
    const after = await getSub(r.subscriptionId);
    expect(after).toMatchObject({ status: "active", currentPeriodEnd: "2026-02-28T10:00:00.000Z" });
    expect((await eventsOf(r.subscriptionId)).sort()).toEqual(["subscription.activated", "subscription.created", "subscription.renewed"]);
  });

  test("Net-N and bad plans are refused at creation, naming the field", async () => {
    const cart = await api("POST", "carts", { key: demo.apiKey, body: { applicationId: demo.applicationId, customerEmail: "x@example.com" } });
    const base = { applicationId: demo.applicationId, cartId: cart.body.data.id, returnUrl: "https://a.example/ok", cancelUrl: "https://a.example/no" };
    const plan = { planReference: "p", interval: "monthly", amount: 100, mode: "auto" };
    const net = await api("POST", "checkout/sessions", { key: demo.apiKey, body: { ...base, recurring: plan, allowedMethods: ["net30"] } });
    expect(net.status).toBe(422);
    expect(net.body.error.details.issues[0].path).toEqual(["allowedMethods"]);
    const terms = await api("POST", "checkout/sessions", { key: demo.apiKey, body: { ...base, recurring: plan, paymentTerms: { netN: 30 } } });
    expect(terms.status).toBe(422);
    for (const [bad, path] of [
      [{ ...plan, interval: "daily" }, ["recurring", "interval"]],
      [{ ...plan, amount: -1 }, ["recurring", "amount"]],
      [{ ...plan, amount: 1.5 }, ["recurring", "amount"]],
      [{ ...plan, quantity: 0 }, ["recurring", "quantity"]],
      [{ ...plan, mode: "x" }, ["recurring", "mode"]],
      [{ ...plan, extra: 1 }, ["recurring"]],
      ["monthly", ["recurring"]],
    ] as const) {
      const r = await api("POST", "checkout/sessions", { key: demo.apiKey, body: { ...base, recurring: bad } });
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe("validation_error");
      expect(r.body.error.details.issues[0].path.slice(0, path.length)).toEqual(path);
    }
  });
});

describe("renewals", () => {
  test("a monthly subscription renews 12 times over a simulated year: 12 orders, 12 captured payments", async () => {
    clock.set(START);
    const r = await subscribe({ planReference: "year", interval: "monthly", amount: 999, mode: "auto" });
    for (let i = 0; i < 12; i++) {
      const s = await getSub(r.subscriptionId);
      clock.set(new Date(new Date(s.currentPeriodEnd).getTime() + 1000));
      await runJob();
      // running again in the same instant charges nothing more
      await runJob();
    }
    const s = await getSub(r.subscriptionId);
    expect(s).toMatchObject({ status: "active", currentPeriodEnd: "2027-02-15T10:00:00.000Z", failureCount: 0 });
    const orders = await t.deps.prisma.order.findMany({ where: { subscriptionId: r.subscriptionId, source: "renewal" } });
    expect(orders).toHaveLength(12);
    expect(orders.every((o) => o.total === 999 && o.paymentStatus === "captured")).toBe(true);
    const payments = await t.deps.prisma.payment.findMany({ where: { subscriptionId: r.subscriptionId } });
    expect(payments).toHaveLength(12);
    expect(payments.every((p) => p.status === "captured" && p.capturedAmount === 999 && p.savedCardId === s.paymentMethod.id)).toBe(true);
    expect((await eventsOf(r.subscriptionId)).filter((e) => e === "subscription.renewed")).toHaveLength(12);
  });

  test("a decline walks the dunning ladder (1d, 3d, 7d) to unpaid", async () => {
    clock.set(START);
    const r = await subscribe({ planReference: "dun", interval: "monthly", amount: 700, mode: "auto" });
    await setCard(r.subscriptionId, "tok_card_declined");
    clock.set(new Date("2026-02-15T10:00:00.000Z"));
    await runJob();
    let s = await getSub(r.subscriptionId);
    expect(s).toMatchObject({ status: "past_due", failureCount: 1, nextRetryAt: "2026-02-16T10:00:00.000Z", currentPeriodEnd: "2026-02-15T10:00:00.000Z" });
    // not yet due: nothing happens
    clock.set(new Date("2026-02-16T09:59:59.000Z"));
    await runJob();
    expect((await getSub(r.subscriptionId)).failureCount).toBe(1);
    clock.set(new Date("2026-02-16T10:00:00.000Z"));
    await runJob();
    s = await getSub(r.subscriptionId);
    expect(s).toMatchObject({ status: "past_due", failureCount: 2, nextRetryAt: "2026-02-19T10:00:00.000Z" });
    clock.set(new Date("2026-02-19T10:00:00.000Z"));
    await runJob();
    s = await getSub(r.subscriptionId);
    expect(s).toMatchObject({ status: "past_due", failureCount: 3, nextRetryAt: "2026-02-26T10:00:00.000Z" });
    clock.set(new Date("2026-02-26T10:00:00.000Z"));
    await runJob();
    s = await getSub(r.subscriptionId);
    expect(s).toMatchObject({ status: "unpaid", failureCount: 4, nextRetryAt: null });
    clock.advance(30 * DAY);
    await runJob();
    expect((await getSub(r.subscriptionId)).failureCount).toBe(4);
    const ev = await eventsOf(r.subscriptionId);
    expect(ev.filter((e) => e === "subscription.payment_failed")).toHaveLength(4);
    expect(ev.filter((e) => e === "subscription.past_due")).toHaveLength(1);
    const failed = await t.deps.prisma.payment.findMany({ where: { subscriptionId: r.subscriptionId } });
    expect(failed.map((p) => p.status)).toEqual(["failed", "failed", "failed", "failed"]);
    expect(await t.deps.prisma.order.count({ where: { subscriptionId: r.subscriptionId, source: "renewal" } })).toBe(0);
    const hist = await t.deps.prisma.subscriptionStatusHistory.findMany({ where: { subscriptionId: r.subscriptionId }, orderBy: { seq: "asc" } });
    expect(hist.map((h) => h.toStatus)).toEqual(["active", "past_due", "unpaid"]);
  });

  test("retrySubscriptionCharge after a decline (card fixed) returns it to active and advances the period", async () => {
    clock.set(START);
    const r = await subscribe({ planReference: "retry", interval: "monthly", amount: 1200, mode: "auto" });
    const ctx = makeCtx(t.deps);
    await expect(retrySubscriptionCharge(ctx, r.subscriptionId)).rejects.toMatchObject({ code: "invalid_state", status: 422 });
    await setCard(r.subscriptionId, "tok_card_declined");
    clock.set(new Date("2026-02-15T10:00:00.000Z"));
    await runJob();
    expect((await getSub(r.subscriptionId)).status).toBe("past_due");
    // a second decline through the retry advances dunning one rung
    clock.set(new Date("2026-02-15T12:00:00.000Z"));
    expect(await retrySubscriptionCharge(ctx, r.subscriptionId)).toEqual({ charged: false });
    expect((await getSub(r.subscriptionId)).failureCount).toBe(2);
    // a lease held by the renewal engine: 409 conflict
    await t.deps.prisma.subscription.update({ where: { id: r.subscriptionId }, data: { leaseOwner: "other", leaseUntil: new Date(clock.now().getTime() + 60_000) } });
    await expect(retrySubscriptionCharge(ctx, r.subscriptionId)).rejects.toMatchObject({ code: "conflict", status: 409 });
    await t.deps.prisma.subscription.update({ where: { id: r.subscriptionId }, data: { leaseOwner: null, leaseUntil: null } });
    await setCard(r.subscriptionId, "tok_visa");
    expect(await retrySubscriptionCharge(ctx, r.subscriptionId)).toEqual({ charged: true });
    const s = await getSub(r.subscriptionId);
    expect(s).toMatchObject({ status: "active", failureCount: 0, nextRetryAt: null, currentPeriodEnd: "2026-03-15T10:00:00.000Z" });
    expect(await eventsOf(r.subscriptionId)).toContain("subscription.renewed");
  });

  test("a paused default card is skipped for the next active one (backup_pm_used); a merchant-attached card declines", async () => {
    clock.set(START);
    const r = await subscribe({ planReference: "backup", interval: "weekly", amount: 300, mode: "auto" });
    const s0 = await getSub(r.subscriptionId);
    const backup = await t.deps.prisma.savedCard.create({
      data: { id: `cpm_backup${seq}`, applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id, customerId: s0.customerId, cardBrand: "mastercard", cardLastFour: "4444", cardExpMonth: 1, cardExpYear: 2030, chargeable: true, processorReference: "tok_visa", source: "vault", createdAt: new Date(START.getTime() - 1000) },
    });
    await t.deps.prisma.savedCard.update({ where: { id: s0.paymentMethod.id }, data: { isActive: false } });
    clock.set(new Date("2026-01-22T10:00:00.000Z"));
    await runJob();
    const s1 = await getSub(r.subscriptionId);
    expect(s1.status).toBe("active");
    expect(s1.currentPeriodEnd).toBe("2026-01-29T10:00:00.000Z");
    const pay = await t.deps.prisma.payment.findFirstOrThrow({ where: { subscriptionId: r.subscriptionId } });
    expect(pay.savedCardId).toBe(backup.id);
    expect(await eventsOf(r.subscriptionId)).toContain("subscription.backup_pm_used");
    // the default made merchant-attached (not chargeable): a decline in renewals, 402 when charged directly
    await t.deps.prisma.savedCard.update({ where: { id: s0.paymentMethod.id }, data: { isActive: true, chargeable: false, processorReference: null } });
    const now = await api("POST", `subscriptions/${r.subscriptionId}/change-plan`, { key: demo.apiKey, body: { planReference: "backup2", interval: "weekly", amount: 400, effective: "now" } });
    expect(now.status).toBe(402);
    expect(now.body.error).toMatchObject({ code: "payment_failed", details: { reason: "payment_method_not_chargeable" } });
    const qty = await api("POST", `subscriptions/${r.subscriptionId}/change-quantity`, { key: demo.apiKey, body: { quantity: 3, effective: "now" } });
    expect(qty.status).toBe(402);
    expect(qty.body.error.details.reason).toBe("payment_method_not_chargeable");
    expect((await getSub(r.subscriptionId))).toMatchObject({ planReference: "backup", quantity: 1 });
    clock.set(new Date("2026-01-29T10:00:00.000Z"));
    await runJob();
    expect(await getSub(r.subscriptionId)).toMatchObject({ status: "past_due", failureCount: 1 });
  });

  test("a pending plan change applies at the next renewal, and not when cancelAtPeriodEnd", async () => {
    clock.set(START);
    const r = await subscribe({ planReference: "basic", interval: "monthly", amount: 1000, mode: "auto" });
    const first = await api("POST", `subscriptions/${r.subscriptionId}/change-plan`, { key: demo.apiKey, body: { planReference: "mid", interval: "monthly", amount: 1500, effective: "period_end" } });
    expect(first.status).toBe(200);
    // a new call overwrites the pending fields
    const sched = await api("POST", `subscriptions/${r.subscriptionId}/change-plan`, { key: demo.apiKey, body: { planReference: "plus", planName: "Plus", interval: "yearly", amount: 10000, effective: "period_end" } });
    expect(sched.body.data).toMatchObject({ planReference: "basic", pendingPlanReference: "plus", pendingPlanName: "Plus", pendingInterval: "yearly", pendingAmount: 10000 });
    expect(await t.deps.prisma.payment.count({ where: { subscriptionId: r.subscriptionId } })).toBe(0);
    clock.set(new Date("2026-02-15T10:00:00.000Z"));
    await runJob();
    const s = await getSub(r.subscriptionId);
    expect(s).toMatchObject({ planReference: "plus", planName: "Plus", interval: "yearly", amount: 10000, pendingPlanReference: null, currentPeriodEnd: "2027-02-15T10:00:00.000Z" });
    expect((await t.deps.prisma.payment.findFirstOrThrow({ where: { subscriptionId: r.subscriptionId } })).capturedAmount).toBe(10000);
    expect(await eventsOf(r.subscriptionId)).toEqual(expect.arrayContaining(["subscription.plan_change_scheduled", "subscription.plan_changed", "subscription.renewed"]));

    // with cancelAtPeriodEnd: cancelled at period end, the pending change never applies, nothing charged
    clock.set(START);
    const c = await subscribe({ planReference: "basic", interval: "monthly", amount: 1000, mode: "auto" });
    await api("POST", `subscriptions/${c.subscriptionId}/change-plan`, { key: demo.apiKey, body: { planReference: "plus", interval: "monthly", amount: 2000, effective: "period_end" } });
    const patched = await api("PATCH", `subscriptions/${c.subscriptionId}`, { key: demo.apiKey, body: { cancelAtPeriodEnd: true } });
    expect(patched.body.data.cancelAtPeriodEnd).toBe(true);
    clock.set(new Date("2026-02-15T10:00:00.000Z"));
    await runJob();
    expect(await getSub(c.subscriptionId)).toMatchObject({ status: "cancelled", planReference: "basic", pendingPlanReference: "plus" });
    expect(await t.deps.prisma.payment.count({ where: { subscriptionId: c.subscriptionId } })).toBe(0);
    expect(await eventsOf(c.subscriptionId)).toContain("subscription.cancelled");
  });

  test("manual mode waits for POST /subscriptions/{id}/renew", async () => {
    clock.set(START);
    const r = await subscribe({ planReference: "man", interval: "monthly", amount: 800, mode: "manual" });
    clock.set(new Date("2026-02-16T10:00:00.000Z"));
    await runJob();
    expect((await getSub(r.subscriptionId)).currentPeriodEnd).toBe("2026-02-15T10:00:00.000Z");
    const renewed = await api("POST", `subscriptions/${r.subscriptionId}/renew`, { key: demo.apiKey });
    expect(renewed.status).toBe(200);
    expect(renewed.body.data).toMatchObject({ charged: true, status: "active", currentPeriodEnd: "2026-03-15T10:00:00.000Z" });
    const auto = await subscribe({ planReference: "auto", interval: "monthly", amount: 800, mode: "auto" });
    const refused = await api("POST", `subscriptions/${auto.subscriptionId}/renew`, { key: demo.apiKey });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe("invalid_state");
  });
});

describe("changes", () => {
  test("proration table: (period position, old/new quantity) -> credit and charge, rounded half up", () => {
    const start = new Date("2026-01-01T00:00:00.000Z");
    const end = new Date("2026-01-31T00:00:00.000Z"); // 30 days = 2,592,000 s
    const s = { currentPeriodStart: start, currentPeriodEnd: end, amount: 1000, quantity: 2 };
    const at = (days: number) => new Date(start.getTime() + days * DAY);
    const cases: [number, number, number, number, number][] = [
      // [days elapsed, old qty, new qty, creditCents, chargedCents]
      [0, 2, 3, 2000, 3000], // whole period left
      [15, 2, 3, 1000, 1500], // half
      [10, 2, 5, 1333, 3333], // 2/3: 1333.33 -> 1333, 3333.33 -> 3333
      [20, 2, 1, 667, 333], // 1/3: 666.67 -> 667, 333.33 -> 333
      [30, 2, 4, 0, 0], // period over
      [7.5, 2, 3, 1500, 2250], // 3/4
    ];
    for (const [days, oldQ, newQ, credit, charged] of cases) {
      expect(prorate({ ...s, quantity: oldQ }, newQ, at(days))).toEqual({ creditCents: credit, chargedCents: charged, fullAmount: 1000 * newQ });
    }
    // exactly half a minor unit rounds up: 1 seat of 1 over 2 s, 1 s left -> 0.5 -> 1
    const tiny = { currentPeriodStart: new Date(0), currentPeriodEnd: new Date(2000), amount: 1, quantity: 1 };
    expect(prorate(tiny, 3, new Date(1000))).toEqual({ creditCents: 1, chargedCents: 2, fullAmount: 3 });
  });

  test("change-quantity now charges the difference, or keeps a negative one as credit for the next renewal", async () => {
    clock.set(START);
    const r = await subscribe({ planReference: "seats", interval: "monthly", amount: 3100, quantity: 2, mode: "auto" });
    // period Jan 15 .. Feb 15 = 31 days; 10 days in, 21 days left
    clock.set(new Date(START.getTime() + 10 * DAY));
    const up = await api("POST", `subscriptions/${r.subscriptionId}/change-quantity`, { key: demo.apiKey, body: { quantity: 3, effective: "now" } });
    expect(up.status).toBe(200);
    // credit 6200 x 21/31 = 4200; charge 9300 x 21/31 = 6300
    expect(up.body.data.proration).toEqual({ creditCents: 4200, chargedCents: 6300, fullAmount: 9300 });
    expect(up.body.data).toMatchObject({ quantity: 3, creditAmount: 0 });
    const pays = await t.deps.prisma.payment.findMany({ where: { subscriptionId: r.subscriptionId } });
    expect(pays.map((p) => [p.status, p.amount])).toEqual([["captured", 2100]]);
    // its order: one subscription line, and the customer's email (the charge is given none)
    const charged = await t.deps.prisma.order.findUniqueOrThrow({ where: { id: pays[0].orderId! }, include: { lineItems: true } });
    const buyer = await t.deps.prisma.customer.findUniqueOrThrow({ where: { id: charged.customerId! } });
    expect(charged).toMatchObject({ source: "quantity_change", status: "fulfilled", total: 2100, subscriptionId: r.subscriptionId, email: buyer.email });
    expect(charged.email).toMatch(/@/);
    expect(charged.lineItems.map((l) => [l.type, l.referenceId, l.quantity])).toEqual([["subscription", "seats", expect.any(Number)]]);
    // down to 1 seat with 21 days left... 11 days left after 10 more days: credit 9300 x 11/31 = 3300, charge 3100 x 11/31 = 1100
    clock.set(new Date(START.getTime() + 20 * DAY));
    const down = await api("POST", `subscriptions/${r.subscriptionId}/change-quantity`, { key: demo.apiKey, body: { quantity: 1 } });
    expect(down.body.data.proration).toEqual({ creditCents: 3300, chargedCents: 1100, fullAmount: 3100 });
    expect(down.body.data).toMatchObject({ quantity: 1, creditAmount: 2200 });
    expect(await t.deps.prisma.payment.count({ where: { subscriptionId: r.subscriptionId } })).toBe(1);
    // the next renewal takes the credit off: 3100 - 2200 = 900
    clock.set(new Date("2026-02-15T10:00:00.000Z"));
    await runJob();
    expect(await getSub(r.subscriptionId)).toMatchObject({ creditAmount: 0, quantity: 1 });
    const last = await t.deps.prisma.payment.findFirstOrThrow({ where: { subscriptionId: r.subscriptionId }, orderBy: { createdAt: "desc" } });
    expect(last.amount).toBe(900);
    // period_end writes pendingQuantity, applied at the renewal after
    const later = await api("POST", `subscriptions/${r.subscriptionId}/change-quantity`, { key: demo.apiKey, body: { quantity: 4, effective: "period_end" } });
    expect(later.body.data).toMatchObject({ quantity: 1, pendingQuantity: 4 });
    const cleared = await api("DELETE", `subscriptions/${r.subscriptionId}/pending-change`, { key: demo.apiKey });
    expect(cleared.body.data).toMatchObject({ pendingQuantity: null, pendingPlanReference: null });
    const again = await api("DELETE", `subscriptions/${r.subscriptionId}/pending-change`, { key: demo.apiKey });
    expect(again.status).toBe(200);
  });

  test("change-plan now charges the full new amount and resets the period", async () => {
    clock.set(START);
    const r = await subscribe({ planReference: "a", interval: "monthly", amount: 1000, mode: "auto" });
    await api("POST", `subscriptions/${r.subscriptionId}/change-plan`, { key: demo.apiKey, body: { planReference: "z", interval: "monthly", amount: 5, effective: "period_end" } });
    clock.set(new Date(START.getTime() + 5 * DAY));
    const now = await api("POST", `subscriptions/${r.subscriptionId}/change-plan`, { key: demo.apiKey, body: { planReference: "b", interval: "quarterly", amount: 2500, effective: "now" } });
    expect(now.status).toBe(200);
    expect(now.body.data).toMatchObject({ planReference: "b", interval: "quarterly", amount: 2500, pendingPlanReference: null, currentPeriodEnd: "2026-04-20T10:00:00.000Z" });
    const p = await t.deps.prisma.payment.findFirstOrThrow({ where: { subscriptionId: r.subscriptionId } });
    expect(p).toMatchObject({ status: "captured", amount: 2500 });
    expect(await eventsOf(r.subscriptionId)).toContain("subscription.plan_changed");
  });

  test("a status move with a further condition (the renewal's lease held): 409 conflict when it fails, nothing written", async () => {
    clock.set(START);
    const r = await subscribe({ planReference: "leased", interval: "monthly", amount: 1000, mode: "auto" });
    await t.deps.prisma.subscription.update({ where: { id: r.subscriptionId }, data: { leaseOwner: "worker-a", leaseUntil: new Date(START.getTime() + 60_000) } });
    const s = await t.deps.prisma.subscription.findUniqueOrThrow({ where: { id: r.subscriptionId } });
    const ctx = makeCtx(t.deps);
    const held = (owner: string): SubscriptionWhere => (eb) => eb("leaseOwner", "=", owner);
    await expect(moveSubscription(ctx, s, "past_due", { failureCount: 1 }, undefined, "card_declined", held("worker-b"))).rejects.toMatchObject({ code: "conflict" });
    expect(await t.deps.prisma.subscription.findUniqueOrThrow({ where: { id: s.id } })).toMatchObject({ status: "active", failureCount: 0 });
    const moved = await moveSubscription(ctx, s, "past_due", { failureCount: 1, leaseOwner: null, leaseUntil: null, metadata: { note: "json set" } }, undefined, "card_declined", held("worker-a"));
    expect(moved).toMatchObject({ status: "past_due", failureCount: 1, leaseOwner: null, metadata: { note: "json set" } });
    expect(moved.updatedAt).toBeInstanceOf(Date);
    const history = await t.deps.prisma.subscriptionStatusHistory.findMany({ where: { subscriptionId: s.id }, orderBy: { seq: "asc" } });
    expect(history.map((h) => [h.fromStatus, h.toStatus, h.reason])).toEqual([[null, "active", "checkout"], ["active", "past_due", "card_declined"]]);
  });

  test("cancel at period end and resume; cancelling the order cancels the subscription at once", async () => {
    clock.set(START);
    // a cart with a shipped line: the order stays processing (cancellable); the subscription is created beside it
    const r = await subscribe({ planReference: "c", interval: "monthly", amount: 1000, mode: "auto" }, undefined, true);
    expect((await api("GET", `orders/${r.orderId}`, { key: demo.apiKey })).body.data).toMatchObject({ status: "processing", total: 2000 });
    await api("PATCH", `subscriptions/${r.subscriptionId}`, { key: demo.apiKey, body: { cancelAtPeriodEnd: true } });
    const resumed = await api("POST", `subscriptions/${r.subscriptionId}/resume`, { key: demo.apiKey });
    expect(resumed.body.data).toMatchObject({ status: "active", cancelAtPeriodEnd: false });
    const cancel = await api("POST", `orders/${r.orderId}/cancel`, { key: demo.apiKey, body: {} });
    expect(cancel.status).toBe(200);
    expect((await getSub(r.subscriptionId)).status).toBe("cancelled");
    expect(await eventsOf(r.subscriptionId)).toEqual(expect.arrayContaining(["subscription.updated", "subscription.resumed", "subscription.cancelled"]));
    const again = await api("POST", `subscriptions/${r.subscriptionId}/resume`, { key: demo.apiKey });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe("invalid_subscription_state");
    // POST /orders/{id}/status cancelled does the same
    const s = await subscribe({ planReference: "c2", interval: "monthly", amount: 1000, mode: "auto" }, undefined, true);
    expect((await api("POST", `orders/${s.orderId}/status`, { key: demo.apiKey, body: { status: "cancelled" } })).status).toBe(200);
    expect((await getSub(s.subscriptionId)).status).toBe("cancelled");
  });
});

describe("errors, tenancy, scopes", () => {
  let subId: string;
  beforeAll(async () => {
    clock.set(START);
    subId = (await subscribe({ planReference: "err", interval: "monthly", amount: 1000, mode: "auto" })).subscriptionId;
  });

  test("every error code of the routes", async () => {
    const k = { key: demo.apiKey };
    const cases: [string, string, unknown, number, string][] = [
      ["POST", "change-plan", { planReference: "err", interval: "monthly", amount: 1, effective: "now" }, 400, "invalid_subscription_state"],
      ["POST", "change-plan", { planReference: "x", interval: "daily", amount: 1, effective: "now" }, 422, "validation_error"],
      ["POST", "change-plan", { planReference: "x", interval: "monthly", amount: 1 }, 422, "validation_error"],
      ["POST", "change-plan", { planReference: "x", interval: "monthly", amount: "1", effective: "now" }, 422, "validation_error"],
      ["POST", "change-quantity", { quantity: 1 }, 400, "quantity_unchanged"],
      ["POST", "change-quantity", { quantity: 0 }, 422, "validation_error"],
      ["POST", "change-quantity", { quantity: 2, effective: "later" }, 422, "validation_error"],
      ["PATCH", "", { cancelAtPeriodEnd: "yes" }, 422, "validation_error"],
      ["PATCH", "", { other: true }, 422, "validation_error"],
    ];
    for (const [method, path, body, status, code] of cases) {
      const r = await api(method, `subscriptions/${subId}${path ? `/${path}` : ""}`, { ...k, body });
      expect([path, r.status, r.body.error?.code]).toEqual([path, status, code]);
    }
    const badList = await api("GET", "subscriptions?status=nope", k);
    expect(badList.status).toBe(422);
    expect((await api("GET", "subscriptions?limit=0", k)).status).toBe(422);
    expect((await api("GET", "subscriptions/not-a-uuid", k)).status).toBe(404);
    expect((await api("GET", "customers/not-a-uuid/trial-eligibility?planReference=x", k)).status).toBe(404);
    const missingPlan = await api("GET", `customers/${(await getSub(subId)).customerId}/trial-eligibility`, k);
    expect(missingPlan.status).toBe(422);
    const malformed = await api("POST", `subscriptions/${subId}/change-plan`, { ...k, raw: "{", validate: false });
    expect(malformed.status).toBe(400);
  });

  test("hostile input on every route is a 4xx, never 5xx", async () => {
    const k = { key: demo.apiKey, validate: false };
    const hostile: unknown[] = [
      null, [], "x", 0, true, { quantity: 1e300 }, { quantity: -0 }, { quantity: 2 ** 31 }, { quantity: "2" }, { quantity: null },
      { planReference: "p".repeat(10_000), interval: "monthly", amount: 1, effective: "now" }, { planReference: "", interval: "monthly", amount: 1, effective: "now" },
      { planReference: "q", interval: "monthly", amount: 2 ** 53, effective: "now" }, { planReference: { a: 1 }, interval: ["monthly"], amount: 1, effective: "now" },
      { cancelAtPeriodEnd: null }, { cancelAtPeriodEnd: [true] }, { quantity: 3.5 }, { "\u0000": 1 },
    ];
    const paths: [string, string][] = [
      ["POST", `subscriptions/${subId}/change-plan`], ["POST", `subscriptions/${subId}/change-quantity`], ["PATCH", `subscriptions/${subId}`],
      ["POST", `subscriptions/${subId}/renew`], ["POST", `subscriptions/${subId}/resume`], ["DELETE", `subscriptions/${subId}/pending-change`],
    ];
    for (const [method, path] of paths) {
      for (const body of hostile) {
        const r = await api(method, path, { ...k, body });
        expect([path, JSON.stringify(body), r.status < 500]).toEqual([path, JSON.stringify(body), true]);
      }
    }
    for (const q of ["status[]=active", "customerId=%00", "customerId=" + "a".repeat(500), "cursor=%%%", "cursor=" + "x".repeat(300), "limit=1e9", "limit=-1", "other=1"]) {
      const r = await api("GET", `subscriptions?${q}`, k);
      expect([q, r.status]).toEqual([q, 422]);
    }
    for (const id of ["%00", "x".repeat(300), "00000000-0000-0000-0000-000000000000", "cus_%ff"]) {
      expect([400, 404]).toContain((await api("GET", `subscriptions/${id}`, k)).status);
      expect((await api("GET", `customers/${id}/trial-eligibility?planReference=x`, k)).status).toBeLessThan(500);
    }
    expect((await getSub(subId)).status).toBe("active");
  });

  test("list with filters and cursor", async () => {
    const s = await getSub(subId);
    const byCustomer = await api("GET", `subscriptions?customerId=${s.customerId}`, { key: demo.apiKey });
    expect(byCustomer.body.data.map((x: any) => x.id)).toEqual([subId]);
    const page1 = await api("GET", "subscriptions?limit=2&status=active", { key: demo.apiKey });
    expect(page1.body.data).toHaveLength(2);
    expect(page1.body.meta.pagination.hasMore).toBe(true);
    const page2 = await api("GET", `subscriptions?limit=2&status=active&cursor=${page1.body.meta.pagination.cursor}`, { key: demo.apiKey });
    expect(page2.body.data.map((x: any) => x.id)).not.toContain(page1.body.data[0].id);
    expect(page2.body.data.every((x: any) => x.status === "active")).toBe(true);
  });

  test("another tenant's subscription is 404 on every route; a key without the scope is 403", async () => {
    const other = await t.otherWorkspace("subs-other");
    const s = await getSub(subId);
    const routes: [string, string, unknown?][] = [
      ["GET", `subscriptions/${subId}`],
      ["PATCH", `subscriptions/${subId}`, { cancelAtPeriodEnd: true }],
      ["POST", `subscriptions/${subId}/renew`],
      ["POST", `subscriptions/${subId}/change-plan`, { planReference: "q", interval: "monthly", amount: 5, effective: "now" }],
      ["POST", `subscriptions/${subId}/change-quantity`, { quantity: 5 }],
      ["DELETE", `subscriptions/${subId}/pending-change`],
      ["POST", `subscriptions/${subId}/resume`],
      ["GET", `customers/${s.customerId}/trial-eligibility?planReference=x`],
    ];
    for (const [method, path, body] of routes) {
      const r = await api(method, path, { key: other.apiKey, body });
      expect([path, r.status, r.body.error?.code]).toEqual([path, 404, "not_found"]);
    }
    expect((await api("GET", "subscriptions", { key: other.apiKey })).body.data).toEqual([]);
    const readOnly = await api("POST", "api-keys", { token: demo.dashboardToken, headers: { "x-service-environment-id": demo.environments.sandbox.id }, body: { name: "ro", scopes: ["subscriptions:read"] } });
    const ro = readOnly.body.data.rawKey;
    const none = (await api("POST", "api-keys", { token: demo.dashboardToken, headers: { "x-service-environment-id": demo.environments.sandbox.id }, body: { name: "none", scopes: ["orders:read"] } })).body.data.rawKey;
    for (const [method, path, body] of routes) {
      const key = method === "GET" ? none : ro;
      const r = await api(method, path, { key, body });
      expect([path, r.status, r.body.error?.code]).toEqual([path, 403, "insufficient_scopes"]);
    }
    expect((await api("GET", "subscriptions", { key: none })).status).toBe(403);
    expect((await api("GET", `subscriptions/${subId}`, { key: ro })).status).toBe(200);
    // nothing changed
    expect(await getSub(subId)).toMatchObject({ status: "active", cancelAtPeriodEnd: false, quantity: 1 });
  });
});

describe("the wallet against the renewal engine", () => {
  test("a declined renewal; the buyer vaults a new card in the wallet, makes it the default and retries: active again, charged on that card", async () => {
    clock.set(START);
    const r = await subscribe({ planReference: "wallet-plan", interval: "monthly", amount: 1000, mode: "auto" });
    await setCard(r.subscriptionId, "tok_card_declined");
    clock.set(new Date(START.getTime() + 32 * DAY));
    await runJob();
    expect((await getSub(r.subscriptionId)).status).toBe("past_due");

    const { customerId } = await t.deps.prisma.subscription.findUniqueOrThrow({ where: { id: r.subscriptionId } });
    const minted = await api("POST", "payment-methods/client-token", { key: demo.apiKey, body: { customerId, subscriptionId: r.subscriptionId } });
    expect(minted.status).toBe(201);
    const pm = { headers: { "x-service-pm-token": minted.body.data.token } };
    const vault = await api("POST", "me/payment-methods/embed-token", pm);
    expect(vault.status).toBe(201);
    const card = await api("POST", "me/payment-methods/confirm", { ...pm, body: { checkoutSessionId: vault.body.data.checkoutSessionId, paymentToken: "tok_visa" } });
    expect(card.status).toBe(201);
    expect((await api("PATCH", `me/payment-methods/${card.body.data.id}`, { ...pm, body: { isDefault: true } })).status).toBe(200);

    const retried = await api("POST", `me/subscriptions/${r.subscriptionId}/retry-charge`, pm);
    expect(retried.status).toBe(200);
    expect(retried.body.data).toMatchObject({ charged: true, status: "active", failureCount: 0, paymentMethod: { id: card.body.data.id } });
    const paid = await t.deps.prisma.payment.findFirstOrThrow({ where: { subscriptionId: r.subscriptionId, status: "captured" }, orderBy: { createdAt: "desc" } });
    expect(paid.savedCardId).toBe(card.body.data.id);

    const again = await api("POST", `me/subscriptions/${r.subscriptionId}/retry-charge`, pm);
    expect([again.status, again.body.error.code]).toEqual([422, "invalid_state"]);
    // another customer's subscription is 404 through this token
    const other = await subscribe({ planReference: "wallet-plan", interval: "monthly", amount: 1000, mode: "auto" });
    expect((await api("POST", `me/subscriptions/${other.subscriptionId}/retry-charge`, pm)).status).toBe(404);
  });
});
