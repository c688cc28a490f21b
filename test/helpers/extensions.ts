// Extension platform fixtures: an https receiver with a throwaway CA (install callbacks are https only), a fetch
// that trusts it, and shortcuts to create, publish and install extensions over REST.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Agent, fetch as undiciFetch } from "undici";
import type { client } from "./http";

export interface HttpsHit {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
  body: any;
}

/** An https server on 127.0.0.1 with a self-signed certificate, and a fetch that trusts exactly that certificate. */
export async function startHttpsReceiver(respond: (h: HttpsHit, n: number) => number = () => 200) {
  const dir = mkdtempSync(path.join(tmpdir(), "ext-tls-"));
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", `${dir}/key.pem`, "-out", `${dir}/cert.pem`, "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"], { stdio: "ignore" });
  const key = readFileSync(`${dir}/key.pem`);
  const cert = readFileSync(`${dir}/cert.pem`);
  const hits: HttpsHit[] = [];
  let responder = respond;
  const server = https.createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      const hit: HttpsHit = { path: req.url ?? "/", headers: req.headers, rawBody, body: rawBody ? JSON.parse(rawBody) : null };
      hits.push(hit);
      res.writeHead(responder(hit, hits.length)).end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const agent = new Agent({ connect: { ca: cert } });
  const trustingFetch = ((url: any, init: any) => undiciFetch(url, { ...init, dispatcher: agent })) as unknown as typeof fetch;
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    fetch: trustingFetch,
    setResponder: (r: typeof respond) => void (responder = r),
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await agent.close();
    },
  };
}

type Api = ReturnType<typeof client>;

export async function createExtension(api: Api, token: string, manifest: Record<string, unknown>) {
  const r = await api("POST", "extensions", { token, body: { name: "Ext", ...manifest } });
  if (r.status !== 201) throw new Error(`create extension: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data as { id: string; lifecycle: string };
}

/** Creates a version of the extension's current manifest and publishes it. */
export async function publishVersion(api: Api, token: string, extensionId: string, version = "1.0.0") {
  const v = await api("POST", `extensions/${extensionId}/versions`, { token, body: { version, notes: "first" } });
  if (v.status !== 201) throw new Error(`create version: ${v.status} ${JSON.stringify(v.body)}`);
  const p = await api("POST", `extensions/${extensionId}/versions/${v.body.data.id}/publish`, { token, body: {} });
  if (p.status !== 200) throw new Error(`publish: ${p.status} ${JSON.stringify(p.body)}`);
  return p.body.data as { id: string; status: string };
}

export function installHeaders(applicationId: string, environmentId: string) {
  return { "x-service-application-id": applicationId, "x-service-environment-id": environmentId };
}

export async function install(api: Api, token: string, extensionId: string, versionId: string, applicationId: string, environmentId: string, config?: Record<string, unknown>) {
  const r = await api("POST", `extensions/${extensionId}/install`, { token, headers: installHeaders(applicationId, environmentId), body: { versionId, ...(config ? { config } : {}) } });
  if (r.status !== 201) throw new Error(`install: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data as { id: string; apiKey: string; webhookSigningSecret: string | null; installSequence: number; webhookEndpointId: string | null; status: string };
}

export const basic = (clientId: string, secret: string) => `Basic ${Buffer.from(`${clientId}:${secret}`).toString("base64")}`;
