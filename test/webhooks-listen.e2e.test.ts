// `npm run webhooks:listen -- --forward-to <url>` against a real server, and the plain-HMAC verification code of
// docs/events-and-webhooks.md (read out of the doc, so the documented code is the tested code) on real deliveries,
// including one signed with two secrets during a rotation.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startReceiver } from "./helpers/receiver";
import { killAll, ROOT, startService, type Started, tsxArgs } from "./helpers/spawn";

const dir = mkdtempSync(path.join(tmpdir(), "q2c-listen-"));
const listeners: ChildProcess[] = [];
const receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];
let svc: Started;
let base: string;
let apiKey: string;

const doc = readFileSync(path.join(ROOT, "docs/events-and-webhooks.md"), "utf8");
const code = /```js verify-webhook\n([\s\S]*?)```/.exec(doc)![1];
type Verify = (rawBody: string, header: string, secret: string, toleranceSeconds?: number, now?: number) => any;
const verifyWebhook = new Function("require", `${code}\nreturn verifyWebhook;`)(require) as Verify;

beforeAll(async () => {
  svc = await startService({ DATA_DIR: path.join(dir, "data"), PORT: "0", DATABASE_URL: "", REDIS_URL: "", LOG_LEVEL: "error" });
  base = `http://127.0.0.1:${/listening on http:\/\/localhost:(\d+)/.exec(svc.output())![1]}`;
  apiKey = JSON.parse(svc.output().split("\n").find((l) => l.startsWith("{"))!).apiKey;
}, 120_000);

afterAll(async () => {
  for (const l of listeners) l.kill("SIGKILL");
  await Promise.all(receivers.map((r) => r.close())); // an open server keeps Jest from exiting
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

async function receiving() {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

/** Starts the command the way npm runs it; resolves with its output so far once `ready` appears (or it exits). */
function listen(args: string[]) {
  const p = spawn(process.execPath, tsxArgs("src/cli/webhooks-listen.ts", args), { cwd: ROOT, env: { ...process.env, SERVICE_API_KEY: "" } });
  listeners.push(p);
  let out = "";
  let err = "";
  p.stdout.on("data", (d) => (out += d));
  p.stderr.on("data", (d) => (err += d));
  const exited = new Promise<number | null>((r) => p.on("exit", (c) => r(c)));
  const waitFor = async (re: RegExp, timeoutMs = 30_000) => {
    const start = Date.now();
    while (!re.test(out)) {
      if (p.exitCode !== null) throw new Error(`listener exited ${p.exitCode}: ${err}${out}`);
      if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${re}: ${err}${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return re.exec(out)!;
  };
  return { p, exited, waitFor, out: () => out, err: () => err };
}

/**
 * Creates carts until the listener has forwarded (or tried to forward) one of them: its subscription is then live.
 * Resolves with the ids of the carts it created, which the caller leaves out of what it expects.
 */
async function primed(l: ReturnType<typeof listen>, ms = 30_000) {
  const carts: string[] = [];
  const start = Date.now();
  for (;;) {
    carts.push((await api("POST", "carts", {})).body.data.id);
    const sent = Date.now();
    while (Date.now() - sent < 500) {
      if (forwardedCreates(l) > 0) return carts;
      await new Promise((r) => setTimeout(r, 20));
    }
    if (Date.now() - start > ms) throw new Error(`the listener forwarded no cart.created in ${ms} ms: ${l.out()}`);
  }
}

/** cart.created lines the listener printed, forwarded or failed */
const forwardedCreates = (l: { out(): string }, outcome = "") => (l.out().match(new RegExp(`cart\\.created\\s+\\S+\\s+-> ${outcome}`, "g")) ?? []).length;

const api = (method: string, p: string, body?: unknown) =>
  fetch(`${base}/api/v1/${p}`, { method, headers: { "x-api-key": apiKey, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) }).then(
    async (r) => ({ status: r.status, body: (await r.json()) as any }),
  );

test("forwards live events to a local URL, signed with the session's secret; the documented check verifies them", async () => {
  const receiver = await receiving();
  const l = listen(["--forward-to", `${receiver.url}/hook`, "--api-key", apiKey, "--url", base, "--events", "cart.created,cart.item_added"]);
  const secret = (await l.waitFor(/Signing secret for this session: (whsec_\S+)/))[1];
  await l.waitFor(/Event types: cart.created, cart.item_added/);
  // The subscription is set up just after the banner: carts until one is forwarded; what follows leaves them out.
  const primers = new Set(await primed(l));
  const notPrimer = (r: { body: { data?: { cartId?: string } } }) => !primers.has(r.body.data?.cartId ?? "");

  const cart = (await api("POST", "carts", {})).body.data;
  await api("POST", `carts/${cart.id}/items`, { name: "W", unitPrice: 100 });
  await api("PATCH", `carts/${cart.id}`, { notes: "not forwarded: cart.updated is filtered out" });
  const got = (await receiver.waitFor((rs) => rs.filter(notPrimer).length >= 2)).filter(notPrimer);
  expect(got.map((r) => r.body.type)).toEqual(["cart.created", "cart.item_added"]);
  const [created] = got;
  expect(created.path).toBe("/hook");
  expect(created.headers["x-service-event-type"]).toBe("cart.created");
  expect(created.headers["x-service-event-id"]).toBe(created.body.id);
  // The forwarded body is the event exactly as the API serves it.
  expect(created.body).toEqual((await api("GET", `events/${created.body.id}`)).body.data);
  expect(verifyWebhook(created.rawBody, String(created.headers["x-service-signature"]), secret)).toMatchObject({ type: "cart.created", data: { cartId: cart.id } });
  expect(() => verifyWebhook(created.rawBody, String(created.headers["x-service-signature"]), "whsec_wrong")).toThrow("no matching v1 signature");
  expect(() => verifyWebhook(created.rawBody.replace(cart.id, "tampered"), String(created.headers["x-service-signature"]), secret)).toThrow();
  await l.waitFor(/cart\.item_added\s+\S+\s+-> 200/);
  expect(l.out()).not.toContain("cart.updated");

  // A receiver that is down is reported and the listener goes on.
  const down = listen(["--forward-to", "http://127.0.0.1:9/hook", "--api-key", apiKey, "--url", base]);
  await down.waitFor(/Signing secret/);
  await primed(down);
  // and after a failure it goes on: the next cart is tried too
  const failed = forwardedCreates(down, "failed: ");
  expect(failed).toBeGreaterThan(0);
  await api("POST", "carts", {});
  for (const start = Date.now(); forwardedCreates(down, "failed: ") <= failed; await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() - start > 15_000) throw new Error(`the listener stopped after a failure: ${down.out()}`);
  }
  expect(down.p.exitCode).toBeNull();
  down.p.kill("SIGINT");
  expect(await down.exited).toBe(0);
  l.p.kill("SIGINT");
  expect(await l.exited).toBe(0);
}, 90_000);

test("a refused key or an unreachable service ends the command with a message saying which", async () => {
  const bad = listen(["--forward-to", "http://127.0.0.1:9/hook", "--api-key", "sk_sandbox_notakey", "--url", base]);
  expect(await bad.exited).toBe(1);
  expect(bad.err()).toContain("The service refused the API key: 401");
  const gone = listen(["--forward-to", "http://127.0.0.1:9/hook", "--api-key", apiKey, "--url", "http://127.0.0.1:9"]);
  expect(await gone.exited).toBe(1);
  expect(gone.err()).toContain("Cannot reach http://127.0.0.1:9");
  const usage = listen(["--api-key", apiKey]);
  expect(await usage.exited).toBe(1);
  expect(usage.err()).toContain("--forward-to is required");
}, 60_000);

test("the documented verification accepts either secret during a rotation, on a real delivery carrying two v1 digests", async () => {
  const receiver = await receiving();
  const created = (await api("POST", "webhook-endpoints", { url: `${receiver.url}/rotating`, enabledEvents: ["cart.created"] })).body.data;
  const oldSecret = created.secret as string;
  const rotated = (await api("POST", `webhook-endpoints/${created.endpoint?.id ?? created.id}/rotate-secret`, { graceSeconds: 3600 })).body.data;
  const newSecret = rotated.secret as string;
  expect(newSecret).not.toBe(oldSecret);
  await api("POST", "carts", {});
  const [delivery] = await receiver.waitFor((rs) => rs.length >= 1);
  const header = String(delivery.headers["x-service-signature"]);
  expect(header.match(/v1=/g)).toHaveLength(2);
  expect(verifyWebhook(delivery.rawBody, header, oldSecret).type).toBe("cart.created");
  expect(verifyWebhook(delivery.rawBody, header, newSecret).type).toBe("cart.created");
  expect(() => verifyWebhook(delivery.rawBody, header, "whsec_other")).toThrow("no matching v1 signature");
  // A captured delivery replayed an hour later is refused by the timestamp check.
  expect(() => verifyWebhook(delivery.rawBody, header, newSecret, 300, Date.now() + 3_600_000)).toThrow("stale");
}, 60_000);
