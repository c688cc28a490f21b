// Stream C's edges of the graph (issue 37): Customer.carts and Cart.checkoutSessions (connections paged per parent),
// Cart.customer, ExtensionInstallation.extension / .version, WorkspaceMember.user / .invitations. Each answers its
// rows, pages, checks its own scope (a key without it loses that field alone) and costs one statement per edge
// whatever the page size.
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { postgresPassTest, startTestApp, type TestApp } from "./helpers/app";
import { createExtension, install, publishVersion } from "./helpers/extensions";
import { gqlClient } from "./helpers/gql";
import { client, mintKeyVia } from "./helpers/http";
import { kindOf, statementsOf } from "./helpers/statements";
import { CustomerCartsDocument, InstallationsWithExtensionDocument, MembersWithUsersDocument, QuotesCustomersCartsDocument } from "./generated/graphql";

let t: TestApp;
let gql: ReturnType<typeof gqlClient>;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;
let customerId: string;
const cartIds: string[] = [];
const sessionIds: string[] = [];
const urls = { returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/no" };

beforeAll(async () => {
  t = (await startTestApp({ env: { RATE_LIMIT_PER_CREDENTIAL: "off" } }))!;
  gql = gqlClient(t.url);
  api = client(t.url);
  demo = await t.bootstrap();
  const k = { key: demo.apiKey };
  customerId = (await api("POST", "customers", { ...k, body: { email: "carts@example.com" } })).body.data.id;
  // 3 carts of the customer, oldest first; the newest has two checkout sessions
  for (let i = 0; i < 3; i++) {
    const c = await api("POST", "carts", { ...k, body: { customerId, customerEmail: "carts@example.com" } });
    expect(c.status).toBe(201);
    cartIds.unshift(c.body.data.id);
    expect((await api("POST", `carts/${c.body.data.id}/items`, { ...k, body: { name: "W", unitPrice: 100 * (i + 1) } })).status).toBe(201);
  }
  for (let i = 0; i < 2; i++) {
    const s = await api("POST", "checkout/sessions", { ...k, body: { cartId: cartIds[0], ...urls } });
    expect(s.status).toBe(201);
    sessionIds.unshift(s.body.data.id);
  }
  // 12 quotes of 4 customers, each customer with a cart
  for (let i = 0; i < 12; i++) {
    const q = await api("POST", "quotes", { ...k, body: { customerEmail: `pq${i % 4}@example.com`, items: [{ name: "x", unitPrice: 100, quantity: 1 }] } });
    expect(q.status).toBe(201);
    if (i < 4) expect((await api("POST", "carts", { ...k, body: { customerId: q.body.data.customerId } })).status).toBe(201);
  }
}, 120_000);
afterAll(() => t?.close());

const cred = () => ({ key: demo.apiKey });

test("Customer.carts pages the customer's carts newest first; each cart answers its customer and its checkout sessions", async () => {
  const first = await gql(CustomerCartsDocument, { id: customerId, first: 2 }, cred());
  expect(first.errors).toBeNull();
  const page = first.data!.customer.carts!;
  expect(page.edges.map((e) => e.node.id)).toEqual(cartIds.slice(0, 2));
  expect(page.pageInfo).toEqual({ hasNextPage: true, endCursor: page.edges[1].cursor });
  expect(page.edges[0].node.customer).toEqual({ id: customerId, email: "carts@example.com" });
  expect(page.edges[0].node.checkoutSessions).toEqual({ nodes: sessionIds.map((id) => ({ id, cartId: cartIds[0], status: "open" })), pageInfo: { hasNextPage: false } });
  expect(page.edges[1].node.checkoutSessions!.nodes).toEqual([]);
  const rest = await gql(CustomerCartsDocument, { id: customerId, first: 2, after: page.pageInfo.endCursor }, cred());
  expect(rest.data!.customer.carts!.edges.map((e) => e.node.id)).toEqual([cartIds[2]]);
  expect(rest.data!.customer.carts!.pageInfo.hasNextPage).toBe(false);
});

test("each edge checks its own scope: a key with customers:read alone reads the customer, its carts edge answers insufficient_scopes", async () => {
  const key = await mintKeyVia(api, demo, ["customers:read"]);
  const r = await gql(CustomerCartsDocument, { id: customerId, first: 2 }, { key: key.rawKey });
  expect(r.data?.customer).toEqual({ id: customerId, carts: null });
  expect(r.errors).toHaveLength(1);
  expect(r.errors![0]).toMatchObject({ path: ["customer", "carts"], extensions: { code: "insufficient_scopes" } });
  // carts:read without checkout:write: the carts and their customer, the sessions edge alone errors (once per cart)
  const carts = await mintKeyVia(api, demo, ["customers:read", "carts:read"]);
  const c = await gql(CustomerCartsDocument, { id: customerId, first: 2 }, { key: carts.rawKey });
  expect(c.data!.customer.carts!.edges.map((e) => [e.node.id, e.node.customer?.id, e.node.checkoutSessions])).toEqual(cartIds.slice(0, 2).map((id) => [id, customerId, null]));
  expect(new Set(c.errors!.map((e) => e.extensions?.code))).toEqual(new Set(["insufficient_scopes"]));
});

test("ExtensionInstallation.extension and .version: the installed extension and its pinned version", async () => {
  for (let i = 0; i < 3; i++) {
    const ext = await createExtension(api, demo.dashboardToken, { name: `Edge ext ${i}`, scopes: ["orders:read"] });
    const v = await publishVersion(api, demo.dashboardToken, ext.id, `1.${i}.0`);
    await install(api, demo.dashboardToken, ext.id, v.id, demo.applicationId, demo.environments.sandbox.id);
  }
  const r = await gql(InstallationsWithExtensionDocument, { first: 10 }, cred());
  expect(r.errors).toBeNull();
  expect(r.data!.extensionInstallations.nodes).toHaveLength(3);
  for (const i of r.data!.extensionInstallations.nodes) {
    expect(i.extension).toEqual({ id: i.extensionId, name: expect.stringMatching(/^Edge ext \d$/) });
    expect(i.version).toEqual({ id: i.versionId, version: i.versionLabel, status: "published" });
  }
});

test("WorkspaceMember.user and .invitations: the member's account and the invitations they sent (dashboard session)", async () => {
  const headers = { "x-service-environment-id": demo.environments.sandbox.id };
  const inv = await api("POST", `workspaces/${demo.workspaceId}/invites`, { token: demo.dashboardToken, headers, body: { email: "edge-invitee@example.com" } });
  expect(inv.status).toBe(201);
  const r = await gql(MembersWithUsersDocument, { workspaceId: demo.workspaceId }, { token: demo.dashboardToken, headers });
  expect(r.errors).toBeNull();
  const owner = r.data!.members.nodes.find((m) => m.invitations?.nodes.length)!;
  expect(owner.user).toEqual({ id: owner.userId, email: owner.email });
  expect(owner.invitations!.nodes).toEqual([{ id: inv.body.data.id, email: "edge-invitee@example.com", invitedByMemberId: owner.memberId }]);
  // a key never reads members (workspace routes are for dashboard sessions)
  expect((await gql(MembersWithUsersDocument, { workspaceId: demo.workspaceId }, cred())).errors?.[0]?.extensions?.code).toBe("application_key_workspace_route");
});

postgresPassTest("a page of quotes with customer -> carts -> customer and checkout sessions costs the same statements for 2 quotes as for 12", async () => {
  await gql(QuotesCustomersCartsDocument, { first: 12 }, cred()); // warm the key cache
  const counts: number[] = [];
  for (const first of [2, 12]) {
    const s = await statementsOf(() => gql(QuotesCustomersCartsDocument, { first }, cred()));
    expect(s.result.errors).toBeNull();
    expect(s.result.data!.quotes.nodes).toHaveLength(first);
    expect(s.result.data!.quotes.nodes.every((q) => q.customer!.carts!.nodes.length === 1)).toBe(true);
    counts.push(s.statements.length);
    if (first === 12) {
      const kinds = s.statements.map(kindOf);
      expect(kinds.filter((k) => k === "SELECT Customer")).toHaveLength(2); // Quote.customer, then Cart.customer
      expect(s.statements.filter((q) => /row_number\(\) over/.test(q))).toHaveLength(2); // Customer.carts, Cart.checkoutSessions
    }
  }
  expect(counts[1]).toBe(counts[0]);
  expect(counts[0]).toBe(5); // the quotes page (one statement), then one per edge: Quote.customer, Customer.carts, Cart.customer, Cart.checkoutSessions
});

postgresPassTest("a page of installs with extension and version costs the same statements for 1 install as for 3", async () => {
  const counts: number[] = [];
  for (const first of [1, 3]) {
    const s = await statementsOf(() => gql(InstallationsWithExtensionDocument, { first }, cred()));
    expect(s.result.errors).toBeNull();
    expect(s.result.data!.extensionInstallations.nodes).toHaveLength(first);
    counts.push(s.statements.length);
  }
  expect(counts[1]).toBe(counts[0]);
  expect(counts[0]).toBe(5); // the installs page's own, then one per edge: .extension, .version
});
