// SSRF: production webhook deliveries re-check the address they connect to, so a host whose DNS answer later
// points at loopback receives nothing; IPv6 forms that embed an IPv4 address are judged by that address.
import net from "node:net";
import type { LookupAddress } from "node:dns";
import { startWithDemo, type TestApp } from "./helpers/app";
import { client, mintKeyVia } from "./helpers/http";
import { isPublicAddress } from "../src/webhooks/url-policy";

test.each([
  ["127.0.0.1", false], ["10.1.2.3", false], ["172.16.5.4", false], ["192.168.1.1", false], ["169.254.169.254", false],
  ["100.64.0.1", false], ["0.0.0.0", false], ["255.255.255.255", false], ["224.0.0.1", false], ["93.184.216.34", true], ["8.8.8.8", true],
  ["::1", false], ["::", false], ["::127.0.0.1", false], ["::7f00:1", false], ["::ffff:127.0.0.1", false], ["::ffff:10.0.0.1", false],
  ["64:ff9b::7f00:1", false], ["64:ff9b::127.0.0.1", false], ["64:ff9b::5db8:d822", true], ["64:ff9b:1::a00:1", false],
  ["fe80::1", false], ["fc00::1", false], ["fd12:3456::1", false], ["ff02::1", false], ["2002:7f00:1::", false], ["2001:db8::1", false],
  ["2606:4700:4700::1111", true], ["::ffff:8.8.8.8", true], ["not-an-ip", false], ["", false],
])("isPublicAddress(%s) is %s", (ip, expected) => {
  expect(isPublicAddress(ip)).toBe(expected);
});

describe("production endpoints", () => {
  let t: TestApp;
  let api: ReturnType<typeof client>;
  let prodKey: string;
  let sandboxKey: string;
  // What hooks.example.test resolves to: a public address when the endpoint is saved, loopback later.
  let answer = "93.184.216.34";
  const resolver = async (host: string): Promise<LookupAddress[]> => {
    if (host === "hooks.example.test") return [{ address: answer, family: net.isIP(answer) }];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  };
  // Counts TCP connections: a delivery that reaches loopback at all shows up here, TLS or not.
  let connections = 0;
  const tcp = net.createServer((s) => {
    connections++;
    s.destroy();
  });
  let port = 0;

  beforeAll(async () => {
    let demo;
    ({ t, api, demo } = await startWithDemo({ resolver, env: { WEBHOOK_RETRY_SCHEDULE: "1h" } }));
    prodKey = (await mintKeyVia(api, demo, ["*"], demo.environments.production.id)).rawKey;
    sandboxKey = demo.apiKey;
    await new Promise<void>((r) => tcp.listen(0, "127.0.0.1", r));
    port = (tcp.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    tcp.close();
    await t?.close();
  });

  test.each(["https://[::127.0.0.1]/hook", "https://[64:ff9b::7f00:1]/hook", "https://[::ffff:7f00:1]/hook", "https://127.1/hook", "https://[fd00::1]/hook"])(
    "%s is refused when saved (422 invalid_webhook_url)",
    async (url) => {
      const r = await api("POST", "webhook-endpoints", { key: prodKey, body: { url, enabledEvents: ["order.created"] } });
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe("invalid_webhook_url");
    },
  );

  test("a host that resolved to a public address when saved and to 127.0.0.1 at delivery receives nothing", async () => {
    answer = "93.184.216.34";
    const created = await api("POST", "webhook-endpoints", { key: prodKey, body: { url: `https://hooks.example.test:${port}/hook`, enabledEvents: ["order.created"] } });
    expect(created.status).toBe(201);
    answer = "127.0.0.1"; // DNS rebinding
    const ping = await api("POST", `webhook-endpoints/${created.body.data.id}/test`, { key: prodKey });
    expect(ping.status).toBe(202);
    let attempt: any;
    for (let i = 0; i < 100 && !attempt?.lastError; i++) {
      await new Promise((r) => setTimeout(r, 50));
      attempt = (await api("GET", `webhook-endpoints/${created.body.data.id}/deliveries/${ping.body.data.id}`, { key: prodKey })).body.data;
    }
    expect(attempt.lastError).toMatch(/^blocked_address: hooks\.example\.test resolves to 127\.0\.0\.1/);
    expect(attempt.status).toBe("retrying");
    expect(connections).toBe(0);

    // The counter works: a sandbox endpoint may use loopback, and its delivery connects.
    const sandbox = await api("POST", "webhook-endpoints", { key: sandboxKey, body: { url: `http://127.0.0.1:${port}/hook`, enabledEvents: ["order.created"] } });
    await api("POST", `webhook-endpoints/${sandbox.body.data.id}/test`, { key: sandboxKey });
    for (let i = 0; i < 100 && connections === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(connections).toBeGreaterThan(0);
  });
});
