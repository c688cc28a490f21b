// Quotes, merchant side over REST (quotes.md parts 2-4, decisions.md part 3): create, read, list, update, issue,
// revisions, comments, link rotation; the transition table end to end; immutability of issued revisions; internal
// notes and comments kept out of events; tenancy, scopes and hostile input.
import { randomUUID } from "node:crypto";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { QUOTE_ACTIONS, QUOTE_STATUSES, QUOTE_TRANSITIONS, nextQuoteStatus } from "../src/quotes/quote.machine";
import { findQuoteByShareToken } from "../src/quotes/quote-read.service";
import { makeCtx } from "../src/shared/context";
import { DomainError } from "../src/shared/errors";
import { startWithTwoTenants, type BootstrapLike, type TestApp } from "./helpers/app";
import { client, mintKeyVia } from "./helpers/http";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;
let other: BootstrapLike;

beforeAll(async () => void ({ t, api, demo, other } = await startWithTwoTenants("quotes-other")));
afterAll(() => t?.close());

const key = () => demo.apiKey;
const PRICED = [
  { name: "Widget", unitPrice: 1500, quantity: 2 },
  { name: "Setup", unitPrice: 10000, type: "service" },
];

async function newQuote(body: Record<string, unknown> = {}, k = key()) {
  const r = await api("POST", "quotes", { key: k, body: { customerEmail: "buyer@example.com", items: PRICED, ...body } });
  expect(r.status).toBe(201);
  return r.body.data;
}
async function issued(body: Record<string, unknown> = {}) {
  const q = await newQuote(body);
  const r = await api("POST", `quotes/${q.id}/issue`, { key: key(), body: {} });
  expect(r.status).toBe(200);
  return r.body.data.quote;
}
function expectError(r: { status: number; body: any }, status: number, code: string, path?: (string | number)[]) {
  expect({ status: r.status, code: r.body?.error?.code }).toEqual({ status, code });
  if (path) expect(r.body.error.details.issues.map((i: any) => i.path)).toContainEqual(path);
}
async function quoteEvents(quoteId: string) {
  const rows = await t.deps.prisma.event.findMany({ where: { type: { startsWith: "quote." } }, orderBy: { createdAt: "asc" } });
  return rows.filter((e) => (e.data as any).quoteId === quoteId);
}

describe("POST /quotes, GET /quotes/{id}", () => {
  test("201: a draft with working revision 1, defaults filled, totals from the lines, customer linked by email, the buyer link", async () => {
    const q = await newQuote({ buyerReference: "PO-7", companyName: "Acme", internalNote: "big fish", paymentTerms: { mode: "net_terms", netN: 45 } });
    expect(q).toMatchObject({
      number: expect.stringMatching(/^Q-\d+$/),
      status: "draft",
      currency: "USD",
      customerEmail: "buyer@example.com",
      companyName: "Acme",
      buyerReference: "PO-7",
      source: "api",
      internalNote: "big fish",
      currentRevisionId: null,
      expiresAt: null,
      comments: [],
    });
    expect(q.shareToken).toMatch(/^qt_[A-Za-z0-9]{32}$/);
    expect(q.buyerUrl).toBe(`${t.url}/q/${q.shareToken}`);
    expect(q.customer).toEqual({ id: q.customerId, email: "buyer@example.com" });
    expect(q.revisions).toHaveLength(1);
    const rev = q.workingRevision;
    expect(rev).toEqual(q.revisions[0]);
    expect(rev).toMatchObject({
      number: 1,
      status: "working",
      paymentTerms: { mode: "net_terms", netN: 45, balanceNetN: null },
      deposit: null,
      depositAmount: null,
      collectShipping: null,
      collectBilling: null,
      collect: { shippingAddress: true, billingAddress: true },
      collectDefault: { shippingAddress: true, billingAddress: true },
      shippingMode: "none",
      subtotal: 13000,
      shippingTotal: 0,
      taxTotal: 0,
      total: 13000,
    });
    expect(rev.items.map((i: any) => [i.name, i.deliveryMethod, i.optional, i.selected, i.qtyEditable, i.total])).toEqual([
      ["Widget", "shipment", false, true, false, 3000],
      ["Setup", "none", false, true, false, 10000],
    ]);
    const read = await api("GET", `quotes/${q.id}`, { key: key() });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(q);
    // the same email is the same customer
    const again = await newQuote({ customerEmail: "BUYER@example.com" });
    expect(again.customerId).toBe(q.customerId);
    expect(Number(again.number.slice(2))).toBeGreaterThan(Number(q.number.slice(2)));
  });

  test("collect overrides: omitted keeps, null derives, boolean overrides; a services-only offer derives no shipping", async () => {
    const q = await newQuote({ items: [{ name: "Consulting", unitPrice: 5000, type: "service" }], collect: { billingAddress: false } });
    const rev = q.workingRevision;
    expect(rev).toMatchObject({ collectShipping: null, collectBilling: false, collectDefault: { shippingAddress: false, billingAddress: true }, collect: { shippingAddress: false, billingAddress: false } });
    const p1 = await api("PATCH", `quotes/${q.id}/revisions/${rev.id}`, { key: key(), body: { collect: { shippingAddress: true } } });
    expect(p1.body.data).toMatchObject({ collectShipping: true, collectBilling: false, collect: { shippingAddress: true, billingAddress: false } });
    const p2 = await api("PATCH", `quotes/${q.id}/revisions/${rev.id}`, { key: key(), body: { collect: { billingAddress: null }, shippingMode: "flat", shippingAmount: 700 } });
    expect(p2.body.data).toMatchObject({ collectShipping: true, collectBilling: null, collectDefault: { shippingAddress: true, billingAddress: true }, shippingTotal: 700, total: 5700 });
  });

  test("422 naming the field: bad terms, deposit without deposit terms, past expiry, unknown field, missing email, fractional money", async () => {
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [{ paymentTerms: { mode: "net_terms" } }, ["paymentTerms", "netN"]],
      [{ paymentTerms: { mode: "net_terms", netN: 366 } }, ["paymentTerms", "netN"]],
      [{ paymentTerms: { mode: "pay_in_full", netN: 30 } }, ["paymentTerms", "netN"]],
      [{ deposit: { type: "percent", value: 20 } }, ["deposit"]],
      [{ paymentTerms: { mode: "deposit_balance", balanceNetN: 30 }, deposit: { type: "percent", value: 100 } }, ["deposit", "value"]],
      [{ expiresAt: "2001-01-01T00:00:00Z" }, ["expiresAt"]],
      [{ expiresAt: "tomorrow" }, ["expiresAt"]],
      [{ surprise: 1 }, []],
      [{ customerEmail: undefined }, ["customerEmail"]],
      [{ items: [{ name: "x", unitPrice: 10.5 }] }, ["items", 0, "unitPrice"]],
      [{ items: [{ name: "x", quantity: 0 }] }, ["items", 0, "quantity"]],
      [{ items: [{ name: "x", deliveryMethod: "drone" }] }, ["items", 0, "deliveryMethod"]],
      [{ shippingMode: "flat" }, ["shippingAmount"]],
    ];
    for (const [patch, path] of cases) {
      const r = await api("POST", "quotes", { key: key(), body: { customerEmail: "buyer@example.com", items: PRICED, ...patch } });
      expectError(r, 422, "validation_error", path.length ? path : undefined);
    }
  });
});

describe("issuing", () => {
  test("409 empty_revision, unpriced_items (with itemIds), net_terms_not_configured without an invoice_terms connector", async () => {
    const empty = await newQuote({ items: [] });
    expectError(await api("POST", `quotes/${empty.id}/issue`, { key: key(), body: {} }), 409, "empty_revision");
    const unpriced = await newQuote({ items: [{ name: "Priced", unitPrice: 100 }, { name: "Ask me" }] });
    const r = await api("POST", `quotes/${unpriced.id}/issue`, { key: key(), body: {} });
    expectError(r, 409, "unpriced_items");
    expect(r.body.error.details.itemIds).toEqual([unpriced.workingRevision.items[1].id]);
    // production has no connectors
    const prodKey = (await mintKeyVia(api, demo, ["*"], demo.environments.production.id)).rawKey;
    for (const terms of [{ mode: "net_terms", netN: 30 }, { mode: "deposit_balance", balanceNetN: 30 }]) {
      const q = await newQuote({ paymentTerms: terms, ...(terms.mode === "deposit_balance" ? { deposit: { type: "fixed", value: 100 } } : {}) }, prodKey);
      expectError(await api("POST", `quotes/${q.id}/issue`, { key: prodKey, body: {} }), 409, "net_terms_not_configured");
    }
    const inFull = await newQuote({}, prodKey);
    expect((await api("POST", `quotes/${inFull.id}/issue`, { key: prodKey, body: {} })).status).toBe(200);
    // nothing moved on the refused ones
    expect((await api("GET", `quotes/${empty.id}`, { key: key() })).body.data.status).toBe("draft");
  });

  test("issue freezes the revision, computes the deposit (percent, half up), defaults expiry to 30 days, records quote.proposed without internal data", async () => {
    const q = await newQuote({ internalNote: "secret margin 40%", paymentTerms: { mode: "deposit_balance", balanceNetN: 30 }, deposit: { type: "percent", value: 33 }, items: [{ name: "A", unitPrice: 1001, quantity: 3 }] });
    await api("POST", `quotes/${q.id}/comments`, { key: key(), body: { body: "internal: do not tell", visibility: "internal" } });
    const before = Date.now();
    const r = await api("POST", `quotes/${q.id}/issue`, { key: key(), body: {} });
    expect(r.status).toBe(200);
    const d = r.body.data.quote;
    expect(r.body.data.revision).toEqual(d.revisions.find((x: any) => x.id === d.currentRevisionId));
    expect(d.status).toBe("proposed");
    expect(d.workingRevision).toBeNull();
    expect(d.currentRevisionId).toBe(q.workingRevision.id);
    expect(d.revisions[0]).toMatchObject({ status: "issued", total: 3003, depositAmount: 991 }); // 33% of 3003 = 990.99
    expect(new Date(d.expiresAt).getTime() - before).toBeGreaterThan(29.9 * 86400_000);
    expect(d.shareToken).toBe(q.shareToken);
    const events = await quoteEvents(q.id);
    expect(events.map((e) => e.type)).toEqual(["quote.proposed"]);
    const data = events[0].data as any;
    expect(data.quote).toMatchObject({ id: q.id, number: q.number, status: "proposed", currentRevisionId: d.currentRevisionId });
    expect(data.revision).toMatchObject({ id: d.currentRevisionId, status: "issued", depositAmount: 991 });
    const raw = JSON.stringify(data);
    expect(raw).not.toContain("secret margin");
    expect(raw).not.toContain("do not tell");
    expect(raw).not.toContain(q.shareToken);
  });

  test("deposit must leave a balance: 422 at issue when it reaches the total", async () => {
    const q = await newQuote({ paymentTerms: { mode: "deposit_balance", balanceNetN: 15 }, deposit: { type: "fixed", value: 13000 } });
    expectError(await api("POST", `quotes/${q.id}/issue`, { key: key(), body: {} }), 422, "validation_error", ["deposit", "value"]);
    const noDeposit = await newQuote({ paymentTerms: { mode: "deposit_balance", balanceNetN: 15 } });
    expectError(await api("POST", `quotes/${noDeposit.id}/issue`, { key: key(), body: {} }), 422, "validation_error", ["deposit"]);
  });

  test("re-issue: a cloned working revision, edited and issued, supersedes the prior offer at the same link; the issued revision never changes", async () => {
    const q = await issued({ collect: { billingAddress: false } });
    const rev1 = q.revisions[0];
    expectError(await api("PATCH", `quotes/${q.id}/revisions/${rev1.id}`, { key: key(), body: { items: [{ name: "Changed", unitPrice: 1 }] } }), 409, "revision_not_editable");
    const c = await api("POST", `quotes/${q.id}/revisions`, { key: key() });
    expect(c.status).toBe(201);
    const rev2 = c.body.data;
    expect(rev2).toMatchObject({ number: 2, status: "working", collectBilling: false, total: rev1.total });
    expect(rev2.items.map((i: any) => i.name)).toEqual(rev1.items.map((i: any) => i.name));
    expect(rev2.items.map((i: any) => i.id)).not.toEqual(rev1.items.map((i: any) => i.id));
    expectError(await api("POST", `quotes/${q.id}/revisions`, { key: key() }), 409, "working_revision_exists");
    const snapshot = JSON.stringify((await api("GET", `quotes/${q.id}`, { key: key() })).body.data.revisions[0]);
    // edit the working revision: keep the first line by id, re-price it, drop the second, add one
    const edit = await api("PATCH", `quotes/${q.id}/revisions/${rev2.id}`, {
      key: key(),
      body: { items: [{ id: rev2.items[0].id, name: "Widget", unitPrice: 1200, quantity: 5 }, { name: "Extra", unitPrice: 50, optional: true }], paymentTerms: { mode: "net_terms", netN: 10 } },
    });
    expect(edit.status).toBe(200);
    expect(edit.body.data.items[0].id).toBe(rev2.items[0].id);
    expect(edit.body.data).toMatchObject({ total: 6050, paymentTerms: { mode: "net_terms", netN: 10 } });
    expect(JSON.stringify((await api("GET", `quotes/${q.id}`, { key: key() })).body.data.revisions[0])).toBe(snapshot);
    // an id from another revision is refused
    expectError(await api("PATCH", `quotes/${q.id}/revisions/${rev2.id}`, { key: key(), body: { items: [{ id: rev1.items[0].id, name: "x", unitPrice: 1 }] } }), 422, "validation_error", ["items", 0, "id"]);
    const re = await api("POST", `quotes/${q.id}/issue`, { key: key(), body: {} });
    expect(re.status).toBe(200);
    expect(re.body.data.quote).toMatchObject({ status: "proposed", currentRevisionId: rev2.id, shareToken: q.shareToken });
    expect(re.body.data.revision).toMatchObject({ id: rev2.id, number: 2, status: "issued" });
    expect(re.body.data.quote.revisions.map((r: any) => [r.number, r.status])).toEqual([[1, "superseded"], [2, "issued"]]);
    const { supersededAt: _s, status: _st, updatedAt: _u, ...frozen } = JSON.parse(snapshot);
    const { supersededAt, status: _st2, updatedAt: _u2, ...after } = re.body.data.quote.revisions[0];
    expect(after).toEqual(frozen);
    expect(supersededAt).not.toBeNull();
    expect((await quoteEvents(q.id)).map((e) => e.type)).toEqual(["quote.proposed", "quote.proposed"]);
  });
});

describe("the transition table", () => {
  test("unit: every (status, action) pair outside the table is invalid_quote_transition; every pair inside gives its target", () => {
    for (const status of QUOTE_STATUSES) {
      for (const action of QUOTE_ACTIONS) {
        const rule = QUOTE_TRANSITIONS[action];
        if ((rule.from as readonly string[]).includes(status)) {
          expect(nextQuoteStatus(status, action)).toBe(rule.to);
        } else {
          let err: unknown;
          try {
            nextQuoteStatus(status, action);
          } catch (e) {
            err = e;
          }
          expect(err).toBeInstanceOf(DomainError);
          expect({ status, action, code: (err as DomainError).code, http: (err as DomainError).status, details: (err as DomainError).details }).toEqual({ status, action, code: "invalid_quote_transition", http: 409, details: { from: status, to: rule.to } });
        }
      }
    }
  });

  // The merchant routes that move a quote, from every status (forced in the database), against the table.
  const MOVES: { name: string; action: keyof typeof QUOTE_TRANSITIONS | null; to: string; call: (id: string) => Promise<{ status: number; body: any }> }[] = [
    { name: "issue", action: "issue", to: "proposed", call: (id) => api("POST", `quotes/${id}/issue`, { key: key(), body: {} }) },
    { name: "PATCH declined", action: "decline", to: "declined", call: (id) => api("PATCH", `quotes/${id}`, { key: key(), body: { status: "declined", declinedReason: "budget" } }) },
    { name: "PATCH under_review", action: "review", to: "under_review", call: (id) => api("PATCH", `quotes/${id}`, { key: key(), body: { status: "under_review" } }) },
    { name: "PATCH archived", action: "archive", to: "archived", call: (id) => api("PATCH", `quotes/${id}`, { key: key(), body: { status: "archived" } }) },
    ...(["draft", "requested", "proposed", "revision_requested", "accepted", "converted", "expired"] as const).map((to) => ({
      name: `PATCH ${to}`,
      action: null,
      to,
      call: (id: string) => api("PATCH", `quotes/${id}`, { key: key(), body: { status: to } }),
    })),
  ];

  test.each(QUOTE_STATUSES.map((s) => [s]))("from %s: each merchant move succeeds exactly when the table allows it", async (from) => {
    for (const move of MOVES) {
      const q = await newQuote();
      await t.deps.prisma.quote.update({ where: { id: q.id }, data: { status: from } });
      const r = await move.call(q.id);
      const allowed = move.action !== null && (QUOTE_TRANSITIONS[move.action].from as readonly string[]).includes(from);
      if (allowed) {
        expect({ move: move.name, status: r.status, to: (move.name === "issue" ? r.body.data?.quote : r.body.data)?.status }).toEqual({ move: move.name, status: 200, to: move.to });
        const history = await t.deps.prisma.quoteStatusHistory.findMany({ where: { quoteId: q.id }, orderBy: { createdAt: "asc" } });
        expect(history.at(-1)).toMatchObject({ fromStatus: from, toStatus: move.to, action: move.action, actorType: "integration" });
      } else {
        expect({ move: move.name, status: r.status, code: r.body.error?.code, details: r.body.error?.details }).toEqual({
          move: move.name,
          status: 409,
          code: "invalid_quote_transition",
          details: { from, to: move.to },
        });
        expect((await t.deps.prisma.quote.findUniqueOrThrow({ where: { id: q.id } })).status).toBe(from);
      }
    }
  });

  test("a merchant decline records the reason and quote.declined with declinedBy merchant; the declined quote's offer is closed", async () => {
    const q = await issued();
    const r = await api("PATCH", `quotes/${q.id}`, { key: key(), body: { status: "declined", declinedReason: "Out of budget" } });
    expect(r.body.data).toMatchObject({ status: "declined", declinedReason: "Out of budget", declinedBy: "merchant" });
    const ev = (await quoteEvents(q.id)).find((e) => e.type === "quote.declined")!;
    expect(ev.data).toMatchObject({ declinedBy: "merchant", reason: "Out of budget", quote: { status: "declined" } });
    expectError(await api("POST", `quotes/${q.id}/revisions`, { key: key() }), 409, "quote_not_editable");
    expectError(await api("PATCH", `quotes/${q.id}`, { key: key(), body: { declinedReason: "x" } }), 422, "validation_error", ["declinedReason"]);
  });
});

describe("comments, notes, the link", () => {
  test("property: over random mixes of shared and internal comments and notes, no event payload carries an internal one", async () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let round = 0; round < 4; round++) {
      const marker = `INTERNAL-${round}-${randomUUID()}`;
      const q = await newQuote({ internalNote: `${marker}-note` });
      const internal: string[] = [`${marker}-note`];
      const shared: string[] = [];
      const steps = 3 + Math.floor(rnd() * 5);
      for (let i = 0; i < steps; i++) {
        const isInternal = rnd() < 0.5;
        const body = isInternal ? `${marker}-c${i}` : `shared-${round}-${i}`;
        (isInternal ? internal : shared).push(body);
        const r = await api("POST", `quotes/${q.id}/comments`, { key: key(), body: { body, visibility: isInternal ? "internal" : "shared" } });
        expect(r.status).toBe(201);
        if (i === 1) expect((await api("POST", `quotes/${q.id}/issue`, { key: key(), body: {} })).status).toBe(200);
        if (rnd() < 0.3) await api("PATCH", `quotes/${q.id}`, { key: key(), body: { internalNote: `${marker}-note-${i}` } }).then(() => internal.push(`${marker}-note-${i}`));
      }
      const events = await quoteEvents(q.id);
      const payloads = JSON.stringify(events.map((e) => e.data));
      expect(payloads).not.toContain(marker);
      expect(events.filter((e) => e.type === "quote.comment_added").map((e) => (e.data as any).comment.body)).toEqual(shared);
      // the merchant read has all of them
      const read = (await api("GET", `quotes/${q.id}`, { key: key() })).body.data;
      expect(read.comments.map((c: any) => c.body).sort()).toEqual([...internal.filter((s) => !s.includes("-note")), ...shared].sort());
    }
  });

  test("rotate-link: a new token at once; the old one opens nothing", async () => {
    const q = await issued();
    const r = await api("POST", `quotes/${q.id}/rotate-link`, { key: key() });
    expect(r.status).toBe(200);
    expect(r.body.data.shareToken).not.toBe(q.shareToken);
    expect(r.body.data.buyerUrl).toBe(`${t.url}/q/${r.body.data.shareToken}`);
    const ctx = makeCtx(t.deps);
    expect(await findQuoteByShareToken(ctx, q.shareToken)).toBeNull();
    expect((await findQuoteByShareToken(ctx, r.body.data.shareToken))?.id).toBe(q.id);
  });
});

describe("GET /quotes", () => {
  test("newest first, cursor pages, filters status, customerId and q", async () => {
    const tag = `list-${randomUUID().slice(0, 8)}`;
    const a = await newQuote({ customerEmail: `${tag}-a@example.com` });
    const b = await issued({ customerEmail: `${tag}-b@example.com`, buyerReference: `${tag}-ref` });
    const c = await newQuote({ customerEmail: `${tag}-a@example.com` });
    const p1 = await api("GET", `quotes?q=${tag}&limit=2`, { key: key() });
    expect(p1.body.data.map((q: any) => q.id)).toEqual([c.id, b.id]);
    expect(p1.body.meta.pagination.hasMore).toBe(true);
    const p2 = await api("GET", `quotes?q=${tag}&limit=2&cursor=${p1.body.meta.pagination.cursor}`, { key: key() });
    expect(p2.body.data.map((q: any) => q.id)).toEqual([a.id]);
    expect((await api("GET", `quotes?q=${tag}&status=proposed`, { key: key() })).body.data.map((q: any) => q.id)).toEqual([b.id]);
    expect((await api("GET", `quotes?customerId=cus_${a.customerId}`, { key: key() })).body.data.map((q: any) => q.id)).toEqual([c.id, a.id]);
    expectError(await api("GET", "quotes?status=nope", { key: key() }), 422, "validation_error", ["query", "status"]);
    expectError(await api("GET", "quotes?cursor=garbage", { key: key() }), 422, "validation_error");
  });
});

describe("tenancy and scopes", () => {
  test("another workspace's key sees none of it: every route answers 404, the list is empty of it", async () => {
    const q = await newQuote();
    const rev = q.workingRevision.id;
    const k = other.apiKey;
    const calls: [string, string, unknown?][] = [
      ["GET", `quotes/${q.id}`],
      ["PATCH", `quotes/${q.id}`, { internalNote: "x" }],
      ["POST", `quotes/${q.id}/issue`, {}],
      ["POST", `quotes/${q.id}/revisions`],
      ["PATCH", `quotes/${q.id}/revisions/${rev}`, { shippingMode: "none" }],
      ["POST", `quotes/${q.id}/comments`, { body: "hi", visibility: "shared" }],
      ["POST", `quotes/${q.id}/rotate-link`],
    ];
    for (const [m, p, body] of calls) expectError(await api(m, p, { key: k, body }), 404, "not_found");
    expect((await api("GET", "quotes", { key: k })).body.data.map((x: any) => x.id)).not.toContain(q.id);
    // the same for another environment of the same workspace
    const prodKey = (await mintKeyVia(api, demo, ["*"], demo.environments.production.id)).rawKey;
    expectError(await api("GET", `quotes/${q.id}`, { key: prodKey }), 404, "not_found");
  });

  test("quotes:read reads but cannot write; other scopes cannot read; no credential is 401", async () => {
    const q = await newQuote();
    const reader = (await mintKeyVia(api, demo, ["quotes:read"])).rawKey;
    expect((await api("GET", `quotes/${q.id}`, { key: reader })).status).toBe(200);
    expect((await api("GET", "quotes", { key: reader })).status).toBe(200);
    for (const [m, p, body] of [
      ["POST", "quotes", { customerEmail: "a@example.com" }],
      ["PATCH", `quotes/${q.id}`, { internalNote: "x" }],
      ["POST", `quotes/${q.id}/issue`, {}],
      ["POST", `quotes/${q.id}/revisions`, undefined],
      ["POST", `quotes/${q.id}/comments`, { body: "x", visibility: "shared" }],
      ["POST", `quotes/${q.id}/rotate-link`, undefined],
    ] as [string, string, unknown][]) {
      expectError(await api(m, p, { key: reader, body }), 403, "insufficient_scopes");
    }
    const writer = (await mintKeyVia(api, demo, ["quotes:write"])).rawKey;
    expectError(await api("GET", `quotes/${q.id}`, { key: writer }), 403, "insufficient_scopes");
    expect((await api("POST", `quotes/${q.id}/comments`, { key: writer, body: { body: "x", visibility: "internal" } })).status).toBe(201);
    const carts = (await mintKeyVia(api, demo, ["carts:read"])).rawKey;
    expectError(await api("GET", "quotes", { key: carts }), 403, "insufficient_scopes");
    expectError(await api("GET", `quotes/${q.id}`), 401, "unauthorized");
  });

  test("hostile ids and bodies: 404 or 4xx, never 5xx", async () => {
    const q = await newQuote();
    const ids = ["not-a-uuid", "00000000-0000-0000-0000-000000000000", "%00", "'; DROP TABLE \"Quote\"; --", "a".repeat(300)];
    for (const id of ids) {
      const enc = encodeURIComponent(id);
      for (const [m, p] of [
        ["GET", `quotes/${enc}`],
        ["PATCH", `quotes/${enc}`],
        ["POST", `quotes/${enc}/issue`],
        ["POST", `quotes/${enc}/revisions`],
        ["PATCH", `quotes/${q.id}/revisions/${enc}`],
        ["POST", `quotes/${enc}/comments`],
        ["POST", `quotes/${enc}/rotate-link`],
      ] as const) {
        const r = await api(m, p, { key: key(), body: m === "GET" ? undefined : {} });
        expect({ m, p, status: r.status < 500, code: r.body?.error?.code }).toEqual({ m, p, status: true, code: r.status === 404 ? "not_found" : r.body?.error?.code });
      }
    }
    const bodies: unknown[] = [null, [], "x", 5, { items: "x" }, { items: [null] }, { items: [{ name: {} }] }, { paymentTerms: [] }, { collect: { shippingAddress: "yes" } }, { deposit: { type: "percent", value: "5" } }];
    for (const b of bodies) {
      for (const [m, p] of [["POST", "quotes"], ["PATCH", `quotes/${q.id}/revisions/${q.workingRevision.id}`], ["PATCH", `quotes/${q.id}`], ["POST", `quotes/${q.id}/comments`]] as const) {
        const r = await api(m, p, { key: key(), raw: JSON.stringify(b) });
        expect({ m, p, b, ok: r.status >= 400 && r.status < 500 }).toEqual({ m, p, b, ok: true });
      }
    }
    expectError(await api("POST", "quotes", { key: key(), raw: "{not json" }), 400, "invalid_json");
  });
});
