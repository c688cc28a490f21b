// The buyer side of quotes over GraphQL: the same services as REST (quote-links.e2e), each error code of the accept
// rules in extensions.code, a buyer's whole path from the link to a converted quote, a rep's acceptance and the
// notifications, plus the statement budget of an acceptance (at most 25) and 20 parallel accepts (one checkout).
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { FixedClock } from "../src/shared/clock";
import { startTestApp, type TestApp, postgresPassTest } from "./helpers/app";
import { codeOf, gqlClient } from "./helpers/gql";
import { client, mintKeyVia } from "./helpers/http";
import { statementsOf } from "./helpers/statements";
import {
  AcceptQuoteDocument,
  AcceptQuoteLinkDocument,
  AddQuoteLinkCommentDocument,
  CompleteCheckoutSessionDocument,
  DeclineQuoteLinkDocument,
  IssueQuoteDocument,
  MarkNotificationReadDocument,
  NotificationsDocument,
  QuoteDocument,
  QuoteLinkDocument,
  RequestQuoteLinkRevisionDocument,
  SubmitQuoteRequestDocument,
  ViewQuoteLinkDocument,
} from "./generated/graphql";

let t: TestApp;
let gql: ReturnType<typeof gqlClient>;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;
let clock: FixedClock;

beforeAll(async () => {
  clock = new FixedClock(new Date());
  t = (await startTestApp({ clock, env: { RATE_LIMIT_PER_CREDENTIAL: "off", RATE_LIMIT_QUOTE_LINKS_PER_IP: "off", RATE_LIMIT_QUOTE_LINKS_PER_TOKEN: "off" } }))!;
  gql = gqlClient(t.url);
  api = client(t.url);
  demo = await t.bootstrap();
});
afterAll(() => t?.close());

const cred = () => ({ key: demo.apiKey });
const ADDRESS = { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" };
const LINES = [
  { name: "Widget", unitPrice: 1500, quantity: 2, qtyEditable: true },
  { name: "Gadget", unitPrice: 2500, quantity: 1, optional: true },
  { name: "Setup", unitPrice: 10000, type: "service" },
];

async function issued(body: Record<string, unknown> = {}) {
  const c = await api("POST", "quotes", { key: demo.apiKey, body: { customerEmail: "gql-buyer@example.com", items: LINES, ...body } });
  const q = (await api("POST", `quotes/${c.body.data.id}/issue`, { key: demo.apiKey, body: {} })).body.data.quote;
  return { id: q.id as string, token: q.shareToken as string, rev: q.revisions.find((r: any) => r.id === q.currentRevisionId) };
}

test("a buyer's path over GraphQL: read, view, comment, accept with selections, pay -> converted; keyless", async () => {
  const { id, token, rev } = await issued({ internalNote: "secret margin" });
  const read = await gql(QuoteLinkDocument, { shareToken: token });
  expect(read.errors).toBeNull();
  expect(read.data!.quoteLink).toMatchObject({ quote: { status: "proposed" }, revision: { id: rev.id, total: 15500 } });
  expect(JSON.stringify(read.data)).not.toContain("secret margin");
  expect((await gql(ViewQuoteLinkDocument, { shareToken: token })).data!.viewQuoteLink).toBe(true);
  const c = await gql(AddQuoteLinkCommentDocument, { shareToken: token, body: "Looks good", authorName: "Bea" });
  expect(c.data!.addQuoteLinkComment).toMatchObject({ authorType: "buyer", body: "Looks good" });
  const [widget, gadget] = rev.items;
  const a = await gql(AcceptQuoteLinkDocument, {
    shareToken: token,
    revisionId: rev.id,
    acceptedByName: "Bea",
    itemSelections: [
      { itemId: gadget.id, selected: false },
      { itemId: widget.id, quantity: 3 },
    ],
  });
  expect(a.errors).toBeNull();
  expect(a.data!.acceptQuoteLink.quote.status).toBe("accepted");
  expect(a.data!.acceptQuoteLink.quote.acceptance!.items).toContainEqual({ itemId: gadget.id, selected: false, quantity: 1 });
  const sessionId = a.data!.acceptQuoteLink.checkoutUrl.split("/").pop()!;
  const paid = await gql(CompleteCheckoutSessionDocument, { id: sessionId, paymentMethod: "card" as any, paymentToken: "tok_visa", shippingAddress: ADDRESS, billingAddress: ADDRESS });
  expect(paid.errors).toBeNull();
  const q = await gql(QuoteDocument, { id }, cred());
  expect(q.data!.quote).toMatchObject({ status: "converted", orderId: paid.data!.completeCheckoutSession.orderId, acceptance: { by: "buyer", name: "Bea" } });
  expect((await gql(QuoteLinkDocument, { shareToken: token })).data!.quoteLink.quote.status).toBe("converted");
});

test("each accept-rule error in extensions.code: revision_superseded, quote_expired, invalid_item_selection, invalid_quote_transition, not_found, payment_method_not_allowed", async () => {
  const { id, token, rev } = await issued();
  const acc = (vars: Partial<Parameters<typeof gql<any, any>>[1]> = {}) => gql(AcceptQuoteLinkDocument, { shareToken: token, revisionId: rev.id, acceptedByName: "Bea", ...vars } as any);
  const bad = await acc({ itemSelections: [{ itemId: rev.items[2].id, selected: false }] });
  expect([codeOf(bad), bad.errors![0].extensions!.details.reason]).toEqual(["invalid_item_selection", "not_optional"]);
  expect(codeOf(await acc({ itemSelections: [{ itemId: rev.items[1].id, quantity: 2 }] }))).toBe("invalid_item_selection");
  expect(codeOf(await gql(QuoteLinkDocument, { shareToken: "qt_nope" }))).toBe("not_found");

  await api("POST", `quotes/${id}/revisions`, { key: demo.apiKey, body: {} });
  const re = (await api("POST", `quotes/${id}/issue`, { key: demo.apiKey, body: {} })).body.data.quote;
  const sup = await acc();
  expect(codeOf(sup)).toBe("revision_superseded");
  expect(sup.errors![0].extensions!.details.currentRevisionId).toBe(re.currentRevisionId);

  await t.deps.prisma.quote.update({ where: { id }, data: { expiresAt: new Date(clock.now().getTime() - 1) } });
  const exp = await acc({ revisionId: re.currentRevisionId });
  expect([codeOf(exp), exp.errors![0].extensions!.status]).toEqual(["quote_expired", 410]);

  const other = await issued();
  expect(codeOf(await gql(RequestQuoteLinkRevisionDocument, { shareToken: other.token, message: "cheaper?" }))).toBeUndefined();
  expect(codeOf(await gql(RequestQuoteLinkRevisionDocument, { shareToken: other.token }))).toBe("invalid_quote_transition");
  const declined = await gql(DeclineQuoteLinkDocument, { shareToken: other.token, reason: "no" });
  expect(declined.data!.declineQuoteLink.quote.status).toBe("declined");

  const pif = await issued();
  const ok = await gql(AcceptQuoteLinkDocument, { shareToken: pif.token, revisionId: pif.rev.id, acceptedByName: "Bea" });
  const sid = ok.data!.acceptQuoteLink.checkoutUrl.split("/").pop()!;
  const net = await gql(CompleteCheckoutSessionDocument, { id: sid, paymentMethod: "net30" as any, shippingAddress: ADDRESS });
  expect([codeOf(net), net.errors![0].extensions!.details.allowedMethods]).toEqual(["payment_method_not_allowed", ["card"]]);
});

test("a rep's acceptance (quotes:write; quotes:read is refused) and the notifications over GraphQL", async () => {
  const { id, token, rev } = await issued();
  await gql(AddQuoteLinkCommentDocument, { shareToken: token, body: "ping" });
  const ro = await mintKeyVia(api, demo, ["quotes:read"]);
  expect(codeOf(await gql(AcceptQuoteDocument, { id, revisionId: rev.id, acceptedByName: "Bea" }, { key: ro.rawKey }))).toBe("insufficient_scopes");
  const r = await gql(AcceptQuoteDocument, { id, revisionId: rev.id, acceptedByName: "Bea", reason: "by phone" }, cred());
  expect(r.data!.acceptQuote.quote).toMatchObject({ status: "accepted", acceptance: { by: "merchant", reason: "by phone" } });
  const n = await gql(NotificationsDocument, { quoteId: id, unread: true }, { key: ro.rawKey });
  expect(n.data!.notifications.nodes.map((x) => x.type).sort()).toEqual(["quote_accepted", "quote_comment_added"]); // GraphQL enum names: _ for .
  expect(codeOf(await gql(MarkNotificationReadDocument, { id: n.data!.notifications.nodes[0].id }, { key: ro.rawKey }))).toBe("insufficient_scopes");
  const m = await gql(MarkNotificationReadDocument, { id: n.data!.notifications.nodes[0].id }, cred());
  expect(m.data!.markNotificationRead.read).toBe(true);
  expect(codeOf(await gql(NotificationsDocument, {}))).toBe("unauthorized");
});

postgresPassTest("an acceptance costs at most 25 SQL statements (BEGIN/COMMIT and the link's limiter included)", async () => {
  const { token, rev } = await issued();
  const { result, statements } = await statementsOf(() => api("POST", `quote-links/${token}/accept`, { body: { revisionId: rev.id, acceptedByName: "Bea" } }));
  expect(result.status).toBe(200);
  expect(statements.length).toBeLessThanOrEqual(25);
});

test("20 parallel accepts of one revision: one checkout session; every answer is that session or 409 accept_in_progress", async () => {
  const { id, token, rev } = await issued();
  const answers = await Promise.all(Array.from({ length: 20 }, () => api("POST", `quote-links/${token}/accept`, { body: { revisionId: rev.id, acceptedByName: "Bea" } })));
  const urls = new Set(answers.filter((a) => a.status === 200).map((a) => a.body.data.checkoutUrl));
  expect(urls.size).toBe(1);
  for (const a of answers) if (a.status !== 200) expect([a.status, a.body.error.code]).toEqual([409, "accept_in_progress"]);
  expect(await t.deps.prisma.checkoutSession.count({ where: { quoteId: id } })).toBe(1);
  expect(await t.deps.prisma.cart.count({ where: { metadata: { path: ["quoteId"], equals: id } } })).toBe(1);
});

test("the remaining codes over GraphQL: accept_in_progress (a held row lock), bot_challenge_not_configured, net_terms_not_configured", async () => {
  const { token, rev, id } = await issued();
  if (t.kind === "pg") {
    const { Client } = await import("pg");
    const holder = new Client({ connectionString: t.databaseUrl });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query(`SELECT id FROM "Quote" WHERE id = $1 FOR UPDATE`, [id]);
      const busy = await gql(AcceptQuoteLinkDocument, { shareToken: token, revisionId: rev.id, acceptedByName: "Bea" });
      expect([codeOf(busy), busy.errors![0].extensions!.status]).toEqual(["accept_in_progress", 409]);
      await holder.query("ROLLBACK");
    } finally {
      await holder.end();
    }
  } else {
    console.warn("accept_in_progress needs PostgreSQL's row locks (PGlite serves one connection at a time)");
  }
  expect(codeOf(await gql(AcceptQuoteLinkDocument, { shareToken: token, revisionId: rev.id, acceptedByName: "Bea" }))).toBeUndefined();

  const form = (await api("POST", "quote-request-forms", { key: demo.apiKey, body: { name: "Guarded", fields: { requireBotChallenge: true } } })).body.data;
  const bot = await gql(SubmitQuoteRequestDocument, { formToken: form.formToken, email: "g@example.com", message: "hi", formLoadedAt: clock.now().getTime() - 60_000 });
  expect([codeOf(bot), bot.errors![0].extensions!.status]).toEqual(["bot_challenge_not_configured", 503]);

  const connectors = (await api("GET", "connectors", { key: demo.apiKey })).body.data.filter((c: any) => c.kind === "invoice_terms" && c.status === "active");
  for (const c of connectors) await api("DELETE", `connectors/${c.id}`, { key: demo.apiKey });
  try {
    const net = await api("POST", "quotes", { key: demo.apiKey, body: { customerEmail: "n@example.com", items: LINES, paymentTerms: { mode: "net_terms", netN: 30 } } });
    const r = await gql(IssueQuoteDocument, { id: net.body.data.id }, cred());
    expect([codeOf(r), r.errors![0].extensions!.status]).toEqual(["net_terms_not_configured", 409]);
  } finally {
    await api("POST", "connectors", { key: demo.apiKey, body: { kind: "invoice_terms", provider: "test" } });
  }
});
