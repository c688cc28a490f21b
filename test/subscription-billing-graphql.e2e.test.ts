// Subscriptions over GraphQL: the same services as REST (recurring checkout, reads, changes, renewal, trial
// eligibility), every error code in extensions.code, tenancy and scopes, and the live subscriptionUpdated(id).
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { FixedClock } from "../src/shared/clock";
import { startTestApp, type TestApp } from "./helpers/app";
import { codeOf, gqlClient } from "./helpers/gql";
import { client } from "./helpers/http";
import {
  ChangeSubscriptionPlanDocument,
  ChangeSubscriptionQuantityDocument,
  ClearSubscriptionPendingChangeDocument,
  CompleteRecurringCheckoutDocument,
  CreateRecurringCheckoutSessionDocument,
  RenewSubscriptionDocument,
  ResumeSubscriptionDocument,
  SubscriptionDocument,
  SubscriptionsDocument,
  TrialEligibilityDocument,
  type RecurringInput,
  UpdateSubscriptionDocument,
} from "./generated/graphql";

let t: TestApp;
let gql: ReturnType<typeof gqlClient>;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;
const clock = new FixedClock(new Date("2026-03-01T00:00:00.000Z"));
let n = 0;

beforeAll(async () => {
  t = (await startTestApp({ clock }))!;
  gql = gqlClient(t.url);
  api = client(t.url);
  demo = await t.bootstrap();
});
afterAll(() => t?.close());

async function subscribe(recurring: RecurringInput) {
  const cart = await api("POST", "carts", { key: demo.apiKey, body: { applicationId: demo.applicationId, customerEmail: `g${++n}@example.com` } });
  const s = await gql(CreateRecurringCheckoutSessionDocument, { cartId: cart.body.data.id, recurring }, { key: demo.apiKey });
  expect(s.errors).toBeNull();
  expect(s.data!.createCheckoutSession.allowedMethods).toEqual(["card"]);
  const done = await gql(CompleteRecurringCheckoutDocument, { id: s.data!.createCheckoutSession.id });
  expect(done.errors).toBeNull();
  return done.data!.completeCheckoutSession.subscriptionId!;
}

test("recurring checkout, reads, changes and renewal over GraphQL", async () => {
  const id = await subscribe({ planReference: "g", planName: "G", interval: "monthly", amount: 3000, quantity: 1, mode: "manual" });
  const key = { key: demo.apiKey };
  const read = await gql(SubscriptionDocument, { id }, key);
  expect(read.data!.subscription).toMatchObject({ status: "active", planName: "G", amount: 3000, currentPeriodEnd: "2026-04-01T00:00:00.000Z", paymentMethod: { cardLastFour: "4242" } });
  const list = await gql(SubscriptionsDocument, { status: "active", customerId: read.data!.subscription.customerId }, key);
  expect(list.data!.subscriptions.nodes.map((s) => s.id)).toEqual([id]);
  const elig = await gql(TrialEligibilityDocument, { customerId: read.data!.subscription.customerId, planReference: "g" }, key);
  expect(elig.data!.trialEligibility).toEqual({ eligible: true, reason: null });
  // 31 days in March, 15.5 days left at Mar 16 12:00: credit 3000 x 0.5 = 1500, charge 6000 x 0.5 = 3000
  clock.set(new Date("2026-03-16T12:00:00.000Z"));
  const q = await gql(ChangeSubscriptionQuantityDocument, { id, quantity: 2, effective: "now" }, key);
  expect(q.errors).toBeNull();
  expect(q.data!.changeSubscriptionQuantity).toMatchObject({ quantity: 2, proration: { creditCents: 1500, chargedCents: 3000, fullAmount: 6000 } });
  const sched = await gql(ChangeSubscriptionPlanDocument, { id, planReference: "h", interval: "yearly", amount: 30000, effective: "period_end" }, key);
  expect(sched.data!.changeSubscriptionPlan).toMatchObject({ planReference: "g", pendingPlanReference: "h", pendingInterval: "yearly", pendingAmount: 30000 });
  const cleared = await gql(ClearSubscriptionPendingChangeDocument, { id }, key);
  expect(cleared.data!.clearSubscriptionPendingChange).toMatchObject({ pendingPlanReference: null, pendingAmount: null });
  const upd = await gql(UpdateSubscriptionDocument, { id, cancelAtPeriodEnd: true }, key);
  expect(upd.data!.updateSubscription.cancelAtPeriodEnd).toBe(true);
  const res = await gql(ResumeSubscriptionDocument, { id }, key);
  expect(res.data!.resumeSubscription).toMatchObject({ cancelAtPeriodEnd: false, status: "active" });
  const renewed = await gql(RenewSubscriptionDocument, { id }, key);
  expect(renewed.data!.renewSubscription).toMatchObject({ charged: true, currentPeriodEnd: "2026-05-01T00:00:00.000Z" });
});

test("every error code in extensions.code; cross-tenant not_found; scope insufficient_scopes", async () => {
  const id = await subscribe({ planReference: "e", interval: "weekly", amount: 500, mode: "auto" });
  const key = { key: demo.apiKey };
  expect(codeOf(await gql(ChangeSubscriptionQuantityDocument, { id, quantity: 1 }, key))).toBe("quantity_unchanged");
  expect(codeOf(await gql(ChangeSubscriptionQuantityDocument, { id, quantity: 0 }, key))).toBe("validation_error");
  expect(codeOf(await gql(ChangeSubscriptionPlanDocument, { id, planReference: "e", interval: "weekly", amount: 1, effective: "now" }, key))).toBe("invalid_subscription_state");
  expect(codeOf(await gql(ChangeSubscriptionPlanDocument, { id, planReference: "f", interval: "weekly", amount: -1, effective: "now" }, key))).toBe("validation_error");
  expect(codeOf(await gql(RenewSubscriptionDocument, { id }, key))).toBe("invalid_state");
  expect(codeOf(await gql(SubscriptionsDocument, { limit: 0 }, key))).toBe("validation_error");
  const net = await api("POST", "carts", { key: demo.apiKey, body: { applicationId: demo.applicationId, customerEmail: "net@example.com" } });
  const refused = await gql(CreateRecurringCheckoutSessionDocument, { cartId: net.body.data.id, recurring: { planReference: "n", interval: "monthly", amount: 1, mode: "auto" }, allowedMethods: ["net30"] }, key);
  expect(codeOf(refused)).toBe("validation_error");
  const badPlan = await gql(CreateRecurringCheckoutSessionDocument, { cartId: net.body.data.id, recurring: { planReference: "n", interval: "monthly", amount: -1, mode: "auto" } }, key);
  expect(codeOf(badPlan)).toBe("validation_error");

  const other = await t.otherWorkspace("subs-gql-other");
  const o = { key: other.apiKey };
  const customerId = (await gql(SubscriptionDocument, { id }, key)).data!.subscription.customerId;
  const calls = [
    () => gql(SubscriptionDocument, { id }, o),
    () => gql(RenewSubscriptionDocument, { id }, o),
    () => gql(ChangeSubscriptionPlanDocument, { id, planReference: "x", interval: "weekly", amount: 1, effective: "now" }, o),
    () => gql(ChangeSubscriptionQuantityDocument, { id, quantity: 3 }, o),
    () => gql(ClearSubscriptionPendingChangeDocument, { id }, o),
    () => gql(UpdateSubscriptionDocument, { id, cancelAtPeriodEnd: true }, o),
    () => gql(ResumeSubscriptionDocument, { id }, o),
    () => gql(TrialEligibilityDocument, { customerId, planReference: "e" }, o),
  ];
  for (const call of calls) expect(codeOf(await call())).toBe("not_found");
  expect((await gql(SubscriptionsDocument, {}, o)).data!.subscriptions.nodes).toEqual([]);
  const mint = async (scopes: string[]) =>
    (await api("POST", "api-keys", { token: demo.dashboardToken, headers: { "x-service-environment-id": demo.environments.sandbox.id }, body: { name: "s", scopes } })).body.data.rawKey as string;
  const none = { key: await mint(["orders:read"]) };
  const ro = { key: await mint(["subscriptions:read"]) };
  expect(codeOf(await gql(SubscriptionDocument, { id }, none))).toBe("insufficient_scopes");
  expect(codeOf(await gql(SubscriptionsDocument, {}, none))).toBe("insufficient_scopes");
  expect(codeOf(await gql(TrialEligibilityDocument, { customerId, planReference: "e" }, none))).toBe("insufficient_scopes");
  expect(codeOf(await gql(UpdateSubscriptionDocument, { id, cancelAtPeriodEnd: true }, ro))).toBe("insufficient_scopes");
  expect(codeOf(await gql(ResumeSubscriptionDocument, { id }, ro))).toBe("insufficient_scopes");
  expect(codeOf(await gql(ChangeSubscriptionQuantityDocument, { id, quantity: 3 }, ro))).toBe("insufficient_scopes");
  expect((await gql(SubscriptionDocument, { id }, key)).data!.subscription).toMatchObject({ quantity: 1, cancelAtPeriodEnd: false });
});

test("subscriptionUpdated(id): the current state first, then after each change; another tenant's id is not_found", async () => {
  const id = await subscribe({ planReference: "live", interval: "monthly", amount: 100, mode: "auto" });
  const ws = createClient({ url: `${t.url.replace("http", "ws")}/graphql`, webSocketImpl: WebSocket, connectionParams: { "x-api-key": demo.apiKey }, retryAttempts: 0, lazy: true });
  const it = ws.iterate({ query: `subscription($id: ID!) { subscriptionUpdated(id: $id) { id cancelAtPeriodEnd pendingQuantity } }`, variables: { id } });
  expect(((await it.next()).value as any).data.subscriptionUpdated).toMatchObject({ id, cancelAtPeriodEnd: false });
  const next1 = it.next();
  await gql(UpdateSubscriptionDocument, { id, cancelAtPeriodEnd: true }, { key: demo.apiKey });
  expect(((await next1).value as any).data.subscriptionUpdated).toMatchObject({ cancelAtPeriodEnd: true });
  const next2 = it.next();
  await gql(ChangeSubscriptionQuantityDocument, { id, quantity: 4, effective: "period_end" }, { key: demo.apiKey });
  expect(((await next2).value as any).data.subscriptionUpdated).toMatchObject({ pendingQuantity: 4 });
  await ws.dispose();
  const other = await t.otherWorkspace("subs-live-other");
  const wo = createClient({ url: `${t.url.replace("http", "ws")}/graphql`, webSocketImpl: WebSocket, connectionParams: { "x-api-key": other.apiKey }, retryAttempts: 0, lazy: true });
  const io = wo.iterate({ query: `subscription($id: ID!) { subscriptionUpdated(id: $id) { id } }`, variables: { id } });
  const first = (await io.next()).value as any;
  expect(first.errors?.[0]?.extensions?.code).toBe("not_found");
  await wo.dispose();
});
