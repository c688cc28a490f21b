// Quotes over GraphQL: the same services as REST, the spec's codes in extensions.code, the read of a quote in a
// fixed number of statements whatever its size (no N+1), request forms, application settings and quoteUpdated(id).
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp, postgresPassTest } from "./helpers/app";
import { codeOf, gqlClient } from "./helpers/gql";
import { client, mintKeyVia } from "./helpers/http";
import { kindOf, statementsOf } from "./helpers/statements";
import {
  AddQuoteCommentDocument,
  ApplicationDocument,
  CreateQuoteDocument,
  CreateQuoteRequestFormDocument,
  CreateQuoteRevisionDocument,
  IssueQuoteDocument,
  QuoteDocument,
  QuoteRequestFormsDocument,
  QuotesDocument,
  RequestQuoteFromCartDocument,
  RotateQuoteLinkDocument,
  SubmitQuoteRequestDocument,
  UpdateApplicationDocument,
  UpdateQuoteDocument,
  UpdateQuoteRevisionDocument,
} from "./generated/graphql";

let t: TestApp;
let gql: ReturnType<typeof gqlClient>;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;

beforeAll(async () => {
  t = (await startTestApp({ env: { RATE_LIMIT_PER_CREDENTIAL: "off" } }))!;
  gql = gqlClient(t.url);
  api = client(t.url);
  demo = await t.bootstrap();
});
afterAll(() => t?.close());

const cred = () => ({ key: demo.apiKey });
const items = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `Line ${i + 1}`, unitPrice: 100 * (i + 1), quantity: 1 + (i % 3), optional: i % 5 === 4, qtyEditable: i % 2 === 0 }));

test("create, issue, re-issue and read over GraphQL; the read equals the REST read", async () => {
  const c = await gql(CreateQuoteDocument, { customerEmail: "gql@example.com", items: items(3), paymentTerms: { mode: "net_terms", netN: 30 }, internalNote: "note", collect: { billingAddress: false } }, cred());
  expect(c.errors).toBeNull();
  const q = c.data!.createQuote;
  expect(q).toMatchObject({ status: "draft", source: "api", internalNote: "note", workingRevision: { number: 1, status: "working", paymentTerms: { mode: "net_terms", netN: 30 }, collectBilling: false } });
  const issued = await gql(IssueQuoteDocument, { id: q.id }, cred());
  expect(issued.data!.issueQuote.quote).toMatchObject({ status: "proposed", currentRevisionId: q.workingRevision!.id, workingRevision: null });
  expect(issued.data!.issueQuote.revision).toMatchObject({ id: q.workingRevision!.id, status: "issued" });
  const rev2 = (await gql(CreateQuoteRevisionDocument, { id: q.id }, cred())).data!.createQuoteRevision;
  expect(rev2).toMatchObject({ number: 2, status: "working" });
  const edited = await gql(UpdateQuoteRevisionDocument, { id: q.id, revisionId: rev2.id, items: [{ id: rev2.items[0].id, name: "Line 1", unitPrice: 999 }], shippingMode: "flat", shippingAmount: 500 }, cred());
  expect(edited.errors).toBeNull();
  expect(edited.data!.updateQuoteRevision).toMatchObject({ total: 1499, shippingTotal: 500, items: [{ id: rev2.items[0].id, unitPrice: 999 }] });
  // explicit null clears shippingAmount, which shippingMode flat still needs: 422 naming it
  const cleared = await gql(UpdateQuoteRevisionDocument, { id: q.id, revisionId: rev2.id, shippingAmount: null }, cred());
  expect(codeOf(cleared)).toBe("validation_error");
  expect(cleared.errors![0].extensions!.details.issues[0].path).toEqual(["shippingAmount"]);
  await gql(AddQuoteCommentDocument, { id: q.id, body: "see you", visibility: "shared" }, cred());
  await gql(IssueQuoteDocument, { id: q.id }, cred());
  const read = (await gql(QuoteDocument, { id: q.id }, cred())).data!.quote;
  const rest = (await api("GET", `quotes/${q.id}`, cred())).body.data;
  // the revisions' frozen parties are left out of the shared fragment (query cost); seller-parties.e2e compares them
  const noParties = (r: any) => r && (({ parties: _p, ...rest }) => rest)(r);
  expect(read).toEqual({ ...rest, workingRevision: noParties(rest.workingRevision), revisions: rest.revisions.map(noParties) });
  const list = await gql(QuotesDocument, { q: "gql@example.com", status: "proposed" }, cred());
  expect(list.errors).toBeNull();
  expect(list.data!.quotes.nodes.map((n) => n.id)).toEqual([q.id]);
  const rotated = (await gql(RotateQuoteLinkDocument, { id: q.id }, cred())).data!.rotateQuoteLink;
  expect(rotated.shareToken).not.toBe(read.shareToken);
});

test("the spec's codes in extensions.code", async () => {
  const empty = (await gql(CreateQuoteDocument, { customerEmail: "codes@example.com" }, cred())).data!.createQuote;
  expect(codeOf(await gql(IssueQuoteDocument, { id: empty.id }, cred()))).toBe("empty_revision");
  const unpriced = (await gql(CreateQuoteDocument, { customerEmail: "codes@example.com", items: [{ name: "?" }] }, cred())).data!.createQuote;
  const u = await gql(IssueQuoteDocument, { id: unpriced.id }, cred());
  expect(codeOf(u)).toBe("unpriced_items");
  expect(u.errors![0].extensions!.details.itemIds).toEqual([unpriced.workingRevision!.items[0].id]);
  const bad = await gql(UpdateQuoteDocument, { id: empty.id, status: "accepted" }, cred());
  expect(codeOf(bad)).toBe("invalid_quote_transition");
  expect(bad.errors![0].extensions!.details).toEqual({ from: "draft", to: "accepted" });
  expect(codeOf(await gql(CreateQuoteRevisionDocument, { id: empty.id }, cred()))).toBe("working_revision_exists");
  const q = (await gql(CreateQuoteDocument, { customerEmail: "codes@example.com", items: items(1) }, cred())).data!.createQuote;
  await gql(IssueQuoteDocument, { id: q.id }, cred());
  expect(codeOf(await gql(UpdateQuoteRevisionDocument, { id: q.id, revisionId: q.workingRevision!.id, shippingMode: "none" }, cred()))).toBe("revision_not_editable");
  expect(codeOf(await gql(QuoteDocument, { id: "00000000-0000-4000-8000-000000000000" }, cred()))).toBe("not_found");
  const other = await t.otherWorkspace("gql-quotes-other");
  expect(codeOf(await gql(QuoteDocument, { id: q.id }, { key: other.apiKey }))).toBe("not_found");
  expect(codeOf(await gql(QuoteDocument, { id: q.id }, {}))).toBe("unauthorized");
  const declined = await gql(UpdateQuoteDocument, { id: q.id, status: "declined", declinedReason: "no" }, cred());
  expect(declined.data!.updateQuote).toMatchObject({ status: "declined", declinedBy: "merchant", declinedReason: "no" });
});

postgresPassTest("a quote read is a fixed number of statements: 1 revision with 1 line or 3 revisions of 20 lines with 10 comments", async () => {
  const small = (await gql(CreateQuoteDocument, { customerEmail: "small@example.com", items: items(1) }, cred())).data!.createQuote;
  const big = (await gql(CreateQuoteDocument, { customerEmail: "big@example.com", items: items(20) }, cred())).data!.createQuote;
  for (let r = 0; r < 2; r++) {
    await gql(IssueQuoteDocument, { id: big.id }, cred());
    await gql(CreateQuoteRevisionDocument, { id: big.id }, cred());
  }
  for (let i = 0; i < 10; i++) await gql(AddQuoteCommentDocument, { id: big.id, body: `c${i}`, visibility: i % 2 ? "shared" : "internal" }, cred());
  const counts: Record<string, number> = {};
  for (const [name, q] of [["small", small], ["big", big]] as const) {
    await gql(QuoteDocument, { id: q.id }, cred()); // warm
    const g = await statementsOf(() => gql(QuoteDocument, { id: q.id }, cred()));
    expect(g.result.errors).toBeNull();
    const r = await statementsOf(() => api("GET", `quotes/${q.id}`, cred()));
    expect(r.result.status).toBe(200);
    counts[`graphql ${name}`] = g.statements.length;
    counts[`rest ${name}`] = r.statements.length;
    if (g.statements.length > 2) throw new Error(`GraphQL quote read: ${g.statements.length} statements\n${g.statements.map(kindOf).join("\n")}`);
  }
  const bigRead = (await gql(QuoteDocument, { id: big.id }, cred())).data!.quote;
  expect(bigRead.revisions.map((r) => [r.number, r.items.length])).toEqual([[1, 20], [2, 20], [3, 20]]);
  expect(bigRead.comments).toHaveLength(10);
  // the key's principal is cached by now (0) + the quote with revisions, items, comments and customer (1)
  expect(counts).toEqual({ "graphql small": 1, "rest small": 1, "graphql big": 1, "rest big": 1 });
});

test("request forms, a cart's request and application settings over GraphQL", async () => {
  const f = (await gql(CreateQuoteRequestFormDocument, { name: "GQL form", fields: { targetPrice: true } }, cred())).data!.createQuoteRequestForm;
  expect(f.formToken).toMatch(/^qrf_/);
  expect(f.fields).toEqual({ lineItems: true, targetPrice: true, requireBotChallenge: false });
  const listed = (await gql(QuoteRequestFormsDocument, {}, cred())).data!.quoteRequestForms.nodes.find((n) => n.id === f.id)!;
  expect(listed).toMatchObject({ formToken: null, hostedUrl: null });
  const real = await gql(SubmitQuoteRequestDocument, { formToken: f.formToken!, email: "gqlbuyer@example.com", message: "please quote", formLoadedAt: Date.now() - 5000 }, { headers: { "x-forwarded-for": "192.0.2.10" } });
  const bot = await gql(SubmitQuoteRequestDocument, { formToken: f.formToken!, email: "gqlbot@example.com", message: "please quote", formLoadedAt: Date.now() - 5000, website: "x" }, { headers: { "x-forwarded-for": "192.0.2.11" } });
  expect(bot).toEqual(real);
  expect(real.data!.submitQuoteRequest).toEqual({ received: true });
  expect(await t.deps.prisma.quote.count({ where: { customerEmail: "gqlbot@example.com" } })).toBe(0);
  expect(await t.deps.prisma.quote.count({ where: { customerEmail: "gqlbuyer@example.com", status: "requested" } })).toBe(1);
  const tooFast = await gql(SubmitQuoteRequestDocument, { formToken: f.formToken!, email: "a@example.com", message: "x", formLoadedAt: Date.now() }, { headers: { "x-forwarded-for": "192.0.2.12" } });
  expect(codeOf(tooFast)).toBe("form_submitted_too_fast");

  const cart = (await api("POST", "carts", { key: demo.apiKey, body: {} })).body.data;
  await api("POST", `carts/${cart.id}/items`, { key: demo.apiKey, body: { name: "Thing", unitPrice: 700 } });
  const fromCart = await gql(RequestQuoteFromCartDocument, { cartId: cart.id, note: "hi", customerEmail: "cartgql@example.com" }, cred());
  expect(fromCart.data!.requestQuoteFromCart).toMatchObject({ status: "requested", source: "cart", cartId: cart.id });

  const app = (await gql(ApplicationDocument, { id: demo.applicationId }, { token: demo.dashboardToken })).data!.application;
  expect(app).toMatchObject({ id: demo.applicationId, currency: "USD" });
  const upd = await gql(UpdateApplicationDocument, { id: demo.applicationId, brandColor: "#00FF00", allowedOrigins: ["https://a.example.com"] }, { token: demo.dashboardToken });
  expect(upd.data!.updateApplication).toMatchObject({ brandColor: "#00ff00", allowedOrigins: ["https://a.example.com"] });
  const badColor = await gql(UpdateApplicationDocument, { id: demo.applicationId, brandColor: "green" }, { token: demo.dashboardToken });
  expect(codeOf(badColor)).toBe("validation_error");
  expect((await gql(ApplicationDocument, { id: demo.applicationId }, cred())).data!.application.id).toBe(demo.applicationId); // "*" holds applications:read
  const quotesOnly = (await mintKeyVia(api, demo, ["quotes:read"])).rawKey;
  expect(codeOf(await gql(ApplicationDocument, { id: demo.applicationId }, { key: quotesOnly }))).toBe("insufficient_scopes");
});

test("quoteUpdated(id) sends the quote first, then after each quote.* event; another tenant gets not_found", async () => {
  const q = (await gql(CreateQuoteDocument, { customerEmail: "live@example.com", items: items(2) }, cred())).data!.createQuote;
  const ws = createClient({ url: `${t.url.replace("http", "ws")}/graphql`, webSocketImpl: WebSocket, connectionParams: { "x-api-key": demo.apiKey }, retryAttempts: 0, lazy: true });
  const it = ws.iterate({ query: `subscription($id: ID!) { quoteUpdated(id: $id) { id status currentRevisionId } }`, variables: { id: q.id } });
  expect((await it.next()).value).toEqual({ data: { quoteUpdated: { id: q.id, status: "draft", currentRevisionId: null } } });
  const next = it.next();
  await gql(IssueQuoteDocument, { id: q.id }, cred());
  expect((await next).value).toEqual({ data: { quoteUpdated: { id: q.id, status: "proposed", currentRevisionId: q.workingRevision!.id } } });
  const after = it.next();
  await gql(UpdateQuoteDocument, { id: q.id, status: "declined" }, cred());
  expect((await after).value).toEqual({ data: { quoteUpdated: { id: q.id, status: "declined", currentRevisionId: q.workingRevision!.id } } });
  await ws.dispose();
  const other = await t.otherWorkspace("gql-quotes-live");
  const ws2 = createClient({ url: `${t.url.replace("http", "ws")}/graphql`, webSocketImpl: WebSocket, connectionParams: { "x-api-key": other.apiKey }, retryAttempts: 0, lazy: true });
  const denied = await ws2.iterate({ query: `subscription($id: ID!) { quoteUpdated(id: $id) { id } }`, variables: { id: q.id } }).next();
  expect((denied.value as any).errors[0].extensions.code).toBe("not_found");
  await ws2.dispose();
});
