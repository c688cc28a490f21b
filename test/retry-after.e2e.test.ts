// Every 429 the service answers carries Retry-After (decisions.md part 1), whoever answers it: the REST error handler,
// the pages, GraphQL over HTTP. One case per limiter of src/shared/rate-limit.ts (LIMITS), each exhausted with tiny
// limits, each from its own address (X-Forwarded-For from loopback is trusted) so the buckets stay apart; and the
// wallet's own limits (issue 34 item 14): /me/* and the update-card page /billing/{token}, per token and per address.
import { LIMITS, type LimitName } from "../src/shared/rate-limit";
import { startWithDemo, type TestApp } from "./helpers/app";
import { client, type Res } from "./helpers/http";
import { discover, REDIRECT_URI, register } from "./helpers/oauth";

type Api = ReturnType<typeof client>;
type Demo = Awaited<ReturnType<typeof startWithDemo>>["demo"];
const ADDRESS = { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" };
let n = 0;
/** A fresh client address for one case. */
const from = () => ({ "x-forwarded-for": `10.34.${Math.floor(++n / 250)}.${n % 250}` });

/** What a 429 must carry: the code, the limit that refused, a positive Retry-After and the RateLimit-* headers. */
function expectRefusal(r: { status: number; headers: Headers }, limit: LimitName, code?: string, bodyLimit?: string) {
  expect([r.status, code ?? "rate_limited"]).toEqual([429, "rate_limited"]);
  expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(r.headers.get("ratelimit-remaining")).toBe("0");
  if (bodyLimit !== undefined) expect(bodyLimit).toBe(limit);
  tested.add(limit);
}
const expectRest = (r: Res, limit: LimitName) => expectRefusal(r, limit, r.body?.error?.code, r.body?.error?.details?.limit);

async function gql(t: TestApp, query: string, variables: Record<string, unknown>, headers: Record<string, string>) {
  const res = await fetch(`${t.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as any;
  return { status: res.status, headers: res.headers, code: body.errors?.[0]?.extensions?.code as string | undefined, limit: body.errors?.[0]?.extensions?.details?.limit as string | undefined };
}
async function page(url: string, headers: Record<string, string>, init: RequestInit = {}) {
  const res = await fetch(url, { ...init, headers: { ...headers, ...(init.headers as Record<string, string> | undefined) }, redirect: "manual" });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const tested = new Set<LimitName>();
afterAll(() => {
  // the cases below cover every limiter there is: a new one needs its case here
  expect([...tested].sort()).toEqual((Object.keys(LIMITS) as LimitName[]).sort());
});

describe("authenticated requests: per credential and failed authentications per address", () => {
  let t: TestApp;
  let api: Api;
  let demo: Demo;
  beforeAll(async () => void ({ t, api, demo } = await startWithDemo({ env: { RATE_LIMIT_PER_CREDENTIAL: "3/1m", RATE_LIMIT_AUTH_FAILURES_PER_IP: "2/1m" } })));
  afterAll(() => t?.close());

  test("credential: REST and GraphQL", async () => {
    const ip = from();
    for (let i = 0; i < 3; i++) expect((await api("GET", "whoami", { key: demo.apiKey, headers: ip })).status).toBe(200);
    expectRest(await api("GET", "whoami", { key: demo.apiKey, headers: ip }), "credential");
    const g = await gql(t, "{ viewer { type } }", {}, { "x-api-key": demo.apiKey, ...ip });
    expectRefusal(g, "credential", g.code, g.limit);
  });

  test("authFailureIp: REST, GraphQL, the wallet's /me/*, the update-card page and the dashboard sign-in page", async () => {
    const ip = from();
    for (let i = 0; i < 2; i++) expect((await api("GET", "whoami", { key: "sk_sandbox_nope0000000000000000", headers: ip })).status).toBe(401);
    expectRest(await api("GET", "whoami", { key: "sk_sandbox_nope0000000000000000", headers: ip }), "authFailureIp");
    const g = await gql(t, "{ viewer { type } }", {}, { "x-api-key": demo.apiKey, ...ip });
    expectRefusal(g, "authFailureIp", g.code, g.limit);
    expectRest(await api("GET", "me/payment-methods", { headers: { ...ip, "x-service-pm-token": `pmt_${"x".repeat(40)}` } }), "authFailureIp");
    const billing = await page(`${t.url}/billing/pmt_${"y".repeat(40)}`, ip);
    expectRefusal(billing, "authFailureIp");
    expect(billing.text).toContain("Too many attempts");
    const signIn = await page(`${t.url}/dashboard/sign-in`, { ...ip, origin: t.url, "content-type": "application/x-www-form-urlencoded" }, { method: "POST", body: new URLSearchParams({ token: demo.dashboardToken }).toString() });
    expectRefusal(signIn, "authFailureIp");
  });
});

describe("keyless routes: checkout, quote links and requests, the wallet", () => {
  let t: TestApp;
  let api: Api;
  let demo: Demo;
  beforeAll(async () => {
    ({ t, api, demo } = await startWithDemo({
      env: {
        RATE_LIMIT_PER_CREDENTIAL: "off",
        RATE_LIMIT_CHECKOUT_PER_SESSION: "3/1m",
        RATE_LIMIT_CHECKOUT_PER_IP: "6/1m",
        RATE_LIMIT_DECLINES_PER_SESSION: "1/1h",
        RATE_LIMIT_DECLINES_PER_IP: "2/1h",
        RATE_LIMIT_QUOTE_REQUESTS_PER_IP: "1/1m",
        RATE_LIMIT_QUOTE_LINKS_PER_IP: "3/1m",
        RATE_LIMIT_QUOTE_LINKS_PER_TOKEN: "2/1m",
        RATE_LIMIT_WALLET_PER_TOKEN: "2/1m",
        RATE_LIMIT_WALLET_PER_IP: "3/1m",
      },
    }));
  });
  afterAll(() => t?.close());

  async function openSession() {
    const cart = await api("POST", "carts", { key: demo.apiKey, body: { applicationId: demo.applicationId, customerEmail: "buyer@example.com" } });
    await api("POST", `carts/${cart.body.data.id}/items`, { key: demo.apiKey, body: { name: "Widget", unitPrice: 1500, quantity: 1 } });
    const s = await api("POST", "checkout/sessions", { key: demo.apiKey, body: { applicationId: demo.applicationId, cartId: cart.body.data.id, returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/no" } });
    expect(s.status).toBe(201);
    return s.body.data.id as string;
  }
  const COMPLETE = "mutation($id: ID!, $a: AddressInput) { completeCheckoutSession(id: $id, paymentMethod: card, paymentToken: \"tok_card_declined\", shippingAddress: $a) { orderId } }";

  test("checkoutSession: REST, the hosted checkout page and GraphQL", async () => {
    const id = await openSession();
    const ip = from();
    for (let i = 0; i < 3; i++) expect((await api("GET", `checkout-sessions/${id}/payment-methods`, { headers: ip })).status).toBe(200);
    expectRest(await api("GET", `checkout-sessions/${id}/payment-methods`, { headers: from() }), "checkoutSession");
    expectRefusal(await page(`${t.url}/checkout/${id}`, from()), "checkoutSession");
    const g = await gql(t, COMPLETE, { id, a: ADDRESS }, from());
    expectRefusal(g, "checkoutSession", g.code, g.limit);
  });

  test("checkoutIp: REST and the hosted checkout page", async () => {
    const [a, b, c] = [await openSession(), await openSession(), await openSession()];
    const ip = from();
    for (const id of [a, a, b, b, c, c]) expect((await api("GET", `checkout-sessions/${id}/payment-methods`, { headers: ip })).status).toBe(200);
    expectRest(await api("GET", `checkout-sessions/${await openSession()}/payment-methods`, { headers: ip }), "checkoutIp");
    expectRefusal(await page(`${t.url}/checkout/${await openSession()}`, ip), "checkoutIp");
  });

  test("declineSession and declineIp: REST and GraphQL", async () => {
    const ip = from();
    const decline = (id: string) => api("POST", `checkout-sessions/${id}/complete`, { headers: ip, body: { paymentMethod: "card", paymentToken: "tok_card_declined", shippingAddress: ADDRESS } });
    const a = await openSession();
    expect((await decline(a)).status).toBe(402);
    expectRest(await decline(a), "declineSession");
    const b = await openSession();
    expect((await decline(b)).status).toBe(402);
    const g = await gql(t, COMPLETE, { id: await openSession(), a: ADDRESS }, ip);
    expectRefusal(g, "declineIp", g.code, g.limit);
    expectRest(await decline(await openSession()), "declineIp");
  });

  test("quoteRequestIp: REST", async () => {
    const ip = from();
    expect((await api("POST", "quote-requests", { headers: ip, body: {} })).status).toBe(422);
    expectRest(await api("POST", "quote-requests", { headers: ip, body: {} }), "quoteRequestIp");
  });

  async function shareToken() {
    const q = await api("POST", "quotes", { key: demo.apiKey, body: { customerEmail: "rl@example.com", items: [{ name: "x", unitPrice: 100 }] } });
    const issued = await api("POST", `quotes/${q.body.data.id}/issue`, { key: demo.apiKey, body: {} });
    return (issued.body.data.shareToken ?? issued.body.data.quote?.shareToken) as string;
  }

  test("quoteLinkToken: REST, the quote page and GraphQL", async () => {
    const token = await shareToken();
    for (let i = 0; i < 2; i++) expect((await api("GET", `quote-links/${token}`, { headers: from() })).status).toBe(200);
    expectRest(await api("GET", `quote-links/${token}`, { headers: from() }), "quoteLinkToken");
    expectRefusal(await page(`${t.url}/q/${token}`, from()), "quoteLinkToken");
    const g = await gql(t, "query($t: String!) { quoteLink(shareToken: $t) { quote { number } } }", { t: token }, from());
    expectRefusal(g, "quoteLinkToken", g.code, g.limit);
  });

  test("quoteLinkIp: REST, the invitation page and the request form page", async () => {
    const [a, b] = [await shareToken(), await shareToken()];
    const ip = from();
    for (const token of [a, a, b]) expect((await api("GET", `quote-links/${token}`, { headers: ip })).status).toBe(200);
    expectRest(await api("GET", `quote-links/${b}`, { headers: ip }), "quoteLinkIp");
    expectRefusal(await page(`${t.url}/invites/inv_${"z".repeat(40)}`, ip), "quoteLinkIp");
    expectRefusal(await page(`${t.url}/q/request/qrf_${"z".repeat(32)}`, ip), "quoteLinkIp");
  });

  async function pmToken() {
    const c = await api("POST", "customers", { key: demo.apiKey, body: { email: `w${++n}@example.com` } });
    const r = await api("POST", "payment-methods/client-token", { key: demo.apiKey, body: { customerId: c.body.data.id } });
    expect(r.status).toBe(201);
    return r.body.data.token as string;
  }

  test("walletToken: /me/* and the update-card page share one bucket per client token", async () => {
    const token = await pmToken();
    const pm = (ip: Record<string, string>) => ({ headers: { ...ip, "x-service-pm-token": token } });
    const ok = await api("GET", "me/payment-methods", pm(from()));
    expect(ok.status).toBe(200);
    expect(ok.headers.get("ratelimit-limit")).toBe("2");
    expect((await page(`${t.url}/billing/${token}`, from())).status).toBe(200);
    expectRest(await api("GET", "me/payment-methods", pm(from())), "walletToken");
    const billing = await page(`${t.url}/billing/${token}`, from());
    expectRefusal(billing, "walletToken");
    expect(billing.text).toContain("Too many attempts");
    // a POST of the page is refused before it acts
    const cards = await t.deps.prisma.savedCard.count();
    const post = await page(`${t.url}/billing/${token}`, { ...from(), "content-type": "application/x-www-form-urlencoded" }, { method: "POST", body: "action=add&paymentToken=tok_visa" });
    expectRefusal(post, "walletToken");
    expect(await t.deps.prisma.savedCard.count()).toBe(cards);
    // another token has its own bucket
    expect((await api("GET", "me/payment-methods", { headers: { ...from(), "x-service-pm-token": await pmToken() } })).status).toBe(200);
  });

  test("walletIp: one address, many tokens (known or not): /me/* and the update-card page", async () => {
    const ip = from();
    for (let i = 0; i < 3; i++) expect((await api("GET", "me/payment-methods", { headers: { ...ip, "x-service-pm-token": await pmToken() } })).status).toBe(200);
    expectRest(await api("GET", "me/payment-methods", { headers: { ...ip, "x-service-pm-token": await pmToken() } }), "walletIp");
    expectRest(await api("GET", "me/payment-methods", { headers: { ...ip, "x-service-pm-token": `pmt_${"q".repeat(40)}` } }), "walletIp");
    expectRefusal(await page(`${t.url}/billing/${await pmToken()}`, ip), "walletIp");
  });
});

describe("OAuth: the token endpoint per client and /mcp's failed tokens per address", () => {
  let t: TestApp;
  beforeAll(async () => void ({ t } = await startWithDemo({ env: { RATE_LIMIT_OAUTH_FAILURES_PER_CLIENT: "2/5m", RATE_LIMIT_AUTH_FAILURES_PER_IP: "2/1m" } })));
  afterAll(() => t?.close());

  test("oauthClientFailures: bad codes for one client past its limit; authFailureIp on /mcp", async () => {
    const as = await discover(t.url);
    const c = await register(as);
    const bad = (ip: Record<string, string>) =>
      page(`${t.url}/oauth/token`, { ...ip, "content-type": "application/x-www-form-urlencoded" }, {
        method: "POST",
        body: new URLSearchParams({ grant_type: "authorization_code", client_id: c.client_id, code: "guessed-code-guessed-code", redirect_uri: REDIRECT_URI, code_verifier: "x".repeat(43) }).toString(),
      });
    // from other addresses each time: the client's bucket is what runs out
    for (let i = 0; i < 2; i++) expect((await bad(from())).status).toBe(400);
    const refused = await bad(from());
    expectRefusal(refused, "oauthClientFailures", JSON.parse(refused.text).error);
    const ip = from();
    const mcp = (token: string) => page(`${t.url}/mcp`, { ...ip, authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" }, { method: "POST", body: "{}" });
    for (let i = 0; i < 2; i++) expect((await mcp(`not-a-token-${i}`)).status).toBe(401);
    expectRefusal(await mcp("not-a-token-3"), "authFailureIp");
  });
});
