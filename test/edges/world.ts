// The two tenants of the cross-tenant edge table: A (the demo workspace, the victim) and B (another workspace, the
// caller), each with one row of every kind an edge reaches, made through the REST API as a merchant would. Only the
// extension rows are arranged on purpose: a tenant's `extensionId` and `versionId` are its workspace's DRAFT
// extension and version (the only extension rows another workspace must never read: a published extension is public
// on the marketplace), while its `installationId` is an install of a published extension of its own workspace.
import { startWithTwoTenants, type TestApp } from "../helpers/app";
import { createExtension, install, publishVersion } from "../helpers/extensions";
import { client, type Cred } from "../helpers/http";
import type { EdgeIds, EdgeWorld } from "./types";

type Api = ReturnType<typeof client>;
interface Tenant {
  workspaceId: string;
  applicationId: string;
  environments: { sandbox: { id: string } };
  dashboardToken: string;
  apiKey: string;
}

const urls = { returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/no" };
const address = { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" };

function ok<T = any>(what: string, r: { status: number; body: any }, status = [200, 201]): T {
  if (!status.includes(r.status)) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body).slice(0, 400)}`);
  return r.body?.data as T;
}

/** One row of each kind for a tenant, through REST (its secret key; its dashboard session for team and extensions). */
async function rowsOf(t: TestApp, api: Api, w: Tenant, tag: string): Promise<EdgeIds> {
  const prisma = t.deps.prisma;
  const env = w.environments.sandbox.id;
  const k: Cred = { key: w.apiKey };
  const dash: Cred = { token: w.dashboardToken, headers: { "x-service-application-id": w.applicationId, "x-service-environment-id": env } };
  // payments need the tenant's active connectors in sandbox (the demo has them; another workspace gets the same)
  for (const kind of ["card", "invoice_terms"]) {
    if (!(await prisma.connector.findFirst({ where: { applicationId: w.applicationId, environmentId: env, kind, status: "active" } }))) {
      await prisma.connector.create({ data: { applicationId: w.applicationId, environmentId: env, kind, provider: "test" } });
    }
  }
  const customer = ok<{ id: string }>("customer", await api("POST", "customers", { ...k, body: { email: `edges-${tag}@example.com`, name: `Edges ${tag}` } }));
  // a cart of the customer, paid through a checkout session: the order and its payment
  const email = `edges-${tag}@example.com`;
  const cart = ok<{ id: string }>("cart", await api("POST", "carts", { ...k, body: { customerId: customer.id, customerEmail: email } }));
  ok("cart item", await api("POST", `carts/${cart.id}/items`, { ...k, body: { name: "Widget", unitPrice: 1000, quantity: 2 } }));
  const session = ok<{ id: string }>("session", await api("POST", "checkout/sessions", { ...k, body: { cartId: cart.id, ...urls } }));
  const done = ok<{ orderId: string; paymentId: string }>("complete", await api("POST", `checkout-sessions/${session.id}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: address } }));
  // a fulfillment of the order's line
  const line = await prisma.orderLineItem.findFirst({ where: { orderId: done.orderId }, select: { id: true } });
  const fulfillment = line ? await api("POST", `orders/${done.orderId}/fulfillments`, { ...k, body: { lineItems: [{ lineItemId: line.id, quantity: 1 }] } }) : null;
  // a subscription of the customer (a recurring checkout), which saves its card
  const subCart = ok<{ id: string }>("subscription cart", await api("POST", "carts", { ...k, body: { customerId: customer.id, customerEmail: email } }));
  const subSession = await api("POST", "checkout/sessions", {
    ...k,
    body: { cartId: subCart.id, ...urls, customer: { customerId: customer.id }, recurring: { planReference: "pro", planName: "Pro", interval: "monthly", amount: 1500, quantity: 1, mode: "auto" } },
  });
  const subDone = subSession.status === 201 ? await api("POST", `checkout-sessions/${subSession.body.data.id}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa" } }) : null;
  const card = await prisma.savedCard.findFirst({ where: { customerId: customer.id }, select: { id: true } });
  // a quote of the customer with its working revision
  const quote = ok<{ id: string }>("quote", await api("POST", "quotes", { ...k, body: { customerEmail: `edges-${tag}@example.com`, items: [{ name: "x", unitPrice: 500, quantity: 2 }] } }));
  const revision = await prisma.quoteRevision.findFirstOrThrow({ where: { quoteId: quote.id }, select: { id: true } });
  // extensions: an install of a published extension of the tenant's own workspace, and a draft extension with a draft version
  const published = await createExtension(api, w.dashboardToken, { name: `Edges ${tag} published`, scopes: ["orders:read"] });
  const publishedVersion = await publishVersion(api, w.dashboardToken, published.id);
  const inst = await install(api, w.dashboardToken, published.id, publishedVersion.id, w.applicationId, env);
  const draft = await createExtension(api, w.dashboardToken, { name: `Edges ${tag} draft`, scopes: ["orders:read"] });
  const draftVersion = ok<{ id: string }>("draft version", await api("POST", `extensions/${draft.id}/versions`, { token: w.dashboardToken, body: { version: "0.1.0" } }));
  // the team: the owner's membership, and an invitation the owner sent
  const member = await prisma.member.findFirstOrThrow({ where: { workspaceId: w.workspaceId, workspaceRole: "owner" }, select: { id: true, userId: true } });
  const invite = ok<{ id: string }>("invite", await api("POST", `workspaces/${w.workspaceId}/invites`, { ...dash, body: { email: `invitee-${tag}@example.com` } }));
  return {
    customerId: customer.id,
    quoteId: quote.id,
    revisionId: revision.id,
    orderId: done.orderId,
    paymentId: done.paymentId,
    fulfillmentId: fulfillment?.status === 201 ? fulfillment.body.data.id : null,
    subscriptionId: subDone?.status === 200 ? (subDone.body.data.subscriptionId ?? null) : null,
    paymentMethodId: card?.id ?? null,
    cartId: cart.id,
    checkoutSessionId: session.id,
    installationId: inst.id,
    extensionId: draft.id,
    versionId: draftVersion.id,
    memberId: member.id,
    userId: member.userId,
    invitationId: invite.id,
    workspaceId: w.workspaceId,
  };
}

/** Starts the app with both tenants and their rows; `close` stops it. */
export async function startEdgeWorld(): Promise<{ t: TestApp; world: EdgeWorld; close: () => Promise<void> }> {
  const { t, api, demo, other } = await startWithTwoTenants("edges-other");
  let a: EdgeIds, b: EdgeIds;
  try {
    a = await rowsOf(t, api, demo, "a");
    b = await rowsOf(t, api, other, "b");
  } catch (e) {
    await t.close();
    throw e;
  }
  const gqlB: EdgeWorld["gqlB"] = async (query, variables = {}, opts = {}) => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (opts.dashboard) {
      headers.authorization = `Bearer ${other.dashboardToken}`;
      headers["x-service-application-id"] = other.applicationId;
      headers["x-service-environment-id"] = other.environments.sandbox.id;
    } else headers["x-api-key"] = other.apiKey;
    const res = await fetch(`${t.url}/graphql`, { method: "POST", headers, body: JSON.stringify({ query, variables }) });
    return (await res.json()) as { data: unknown; errors?: unknown[] };
  };
  return { t, world: { prisma: t.deps.prisma, a, b, gqlB }, close: () => t.close() };
}
