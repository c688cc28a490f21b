// A webhook receiver on loopback that records every request and answers as the test scripts it.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  body: any;
  at: number;
}

export type Responder = (r: Received, n: number) => { status: number; body?: string; headers?: Record<string, string>; delayMs?: number };

export async function startReceiver(responder: Responder = () => ({ status: 200, body: "ok" })) {
  const received: Received[] = [];
  let respond = responder;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      let body: any = null;
      try {
        body = JSON.parse(rawBody);
      } catch {
        /* keep raw */
      }
      const r: Received = { path: req.url ?? "/", headers: req.headers, rawBody, body, at: Date.now() };
      received.push(r);
      const answer = respond(r, received.length);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, { "content-type": "text/plain", ...answer.headers });
        res.end(answer.body ?? "");
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    setResponder: (r: Responder) => void (respond = r),
    /** resolves when `predicate` holds over what was received (polls), or rejects after timeoutMs */
    waitFor: async (predicate: (rs: Received[]) => boolean, timeoutMs = 15_000) => {
      const start = Date.now();
      while (!predicate(received)) {
        if (Date.now() - start > timeoutMs) throw new Error(`receiver: condition not met in ${timeoutMs} ms (got ${received.length} requests)`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return received;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
