// npm run webhooks:listen -- --forward-to <url>: follows the running service's live event stream (the GraphQL
// `events` subscription) and POSTs each event to a local URL, signed the way real deliveries are, with a signing
// secret printed for this session. For developing a webhook receiver without exposing it to the internet.
import { parseArgs } from "node:util";
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import { newSigningSecret, signatureHeader } from "../webhooks/signature";

const USAGE = `Usage: npm run webhooks:listen -- --forward-to <url> [--api-key sk_…] [--url http://localhost:3000] [--events a,b] [--secret whsec_…]

  --forward-to  where to POST each event (e.g. http://localhost:4000/webhooks)
  --api-key     a secret API key (default: SERVICE_API_KEY)
  --url         the service (default: SERVICE_URL, else http://localhost:$PORT, PORT default 3000)
  --events      only these event types, comma-separated (default: every type the key may read)
  --secret      sign with this secret instead of a fresh one (e.g. your receiver's configured whsec_…)`;

const EVENTS = `subscription Listen($types: [String!]) {
  events(types: $types) { id type version workspaceId environmentId environmentKind createdAt data }
}`;

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

function options() {
  let values;
  try {
    ({ values } = parseArgs({
      options: { "forward-to": { type: "string" }, "api-key": { type: "string" }, url: { type: "string" }, events: { type: "string" }, secret: { type: "string" }, help: { type: "boolean" } },
    }));
  } catch (e) {
    fail(`${(e as Error).message}\n\n${USAGE}`);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const forwardTo = values["forward-to"];
  if (!forwardTo) fail(`--forward-to is required.\n\n${USAGE}`);
  if (!URL.canParse(forwardTo) || !/^https?:$/.test(new URL(forwardTo).protocol)) fail(`--forward-to must be an http(s) URL, got "${forwardTo}".`);
  const apiKey = values["api-key"] ?? process.env.SERVICE_API_KEY;
  if (!apiKey) fail(`An API key is required: --api-key sk_… or SERVICE_API_KEY (npm start prints one on first start).\n\n${USAGE}`);
  const base = (values.url ?? process.env.SERVICE_URL ?? `http://localhost:${process.env.PORT ?? 3000}`).replace(/\/+$/, "");
  const secret = values.secret ?? newSigningSecret();
  const types = values.events ? values.events.split(",").map((t) => t.trim()).filter(Boolean) : null;
  return { forwardTo, apiKey, base, secret, types };
}

/** Says who the key is, or exits with what to do about it. */
async function whoami(base: string, apiKey: string) {
  let res: Response;
  try {
    res = await fetch(`${base}/api/v1/whoami`, { headers: { "x-api-key": apiKey } });
  } catch (e) {
    fail(`Cannot reach ${base} (${(e as Error & { cause?: Error }).cause?.message ?? (e as Error).message}): is the service running (npm start), and is --url right?`);
  }
  const body = (await res.json().catch(() => null)) as { data?: any; error?: { code: string; message: string } } | null;
  if (!res.ok) fail(`The service refused the API key: ${res.status} ${body?.error?.code ?? ""} ${body?.error?.message ?? ""}`.trim());
  return body!.data as { workspace: { slug: string }; environment: { slug: string }; application: { slug: string } | null };
}

/** POSTs one event as a delivery would; never throws (a receiver that is down is reported, then we go on). */
async function forward(forwardTo: string, secret: string, event: { id: string; type: string }) {
  const rawBody = JSON.stringify(event);
  const started = Date.now();
  try {
    const res = await fetch(forwardTo, {
      method: "POST",
      redirect: "manual",
      signal: AbortSignal.timeout(10_000),
      headers: {
        "content-type": "application/json",
        "x-service-event-id": event.id,
        "x-service-event-type": event.type,
        "x-service-signature": signatureHeader(rawBody, [secret], Math.floor(Date.now() / 1000)),
      },
      body: rawBody,
    });
    return `-> ${res.status} (${Date.now() - started} ms)`;
  } catch (e) {
    return `-> failed: ${(e as Error & { cause?: Error }).cause?.message ?? (e as Error).message}`;
  }
}

async function main() {
  const o = options();
  const who = await whoami(o.base, o.apiKey);
  // "Ready" once the socket is open and the key accepted (its subscription follows on the same socket at once), not
  // before: an event recorded while the socket was still opening would never be forwarded.
  const banner = () => {
    console.log(`Ready: forwarding events of ${who.workspace.slug}/${who.application?.slug ?? "-"} (${who.environment.slug}) to ${o.forwardTo}`);
    console.log(`Signing secret for this session: ${o.secret}`);
    console.log(o.types ? `Event types: ${o.types.join(", ")}` : "Event types: every type this key may read");
  };

  const client = createClient({
    url: `${o.base.replace(/^http/, "ws")}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { "x-api-key": o.apiKey },
    lazy: false,
    retryAttempts: Number.POSITIVE_INFINITY,
    shouldRetry: () => true,
    on: {
      connected: (_s, _p, wasRetry) => (wasRetry ? console.log("Reconnected.") : banner()),
      closed: () => console.log("Connection lost; reconnecting…"),
    },
  });
  const stop = async (code: number) => {
    await client.dispose();
    process.exit(code);
  };
  process.once("SIGINT", () => void stop(0));
  process.once("SIGTERM", () => void stop(0));

  // Events are forwarded one at a time, in the order they arrive, as a receiver would see them.
  let queue = Promise.resolve();
  client.subscribe<{ events: { id: string; type: string } }>(
    { query: EVENTS, variables: { types: o.types } },
    {
      next: (msg) => {
        if (msg.errors?.length) {
          const e = msg.errors[0] as { message: string; extensions?: { code?: string } };
          console.error(`The service ended the stream: ${e.extensions?.code ?? ""} ${e.message}`.trim());
          void stop(1);
          return;
        }
        const event = msg.data!.events;
        queue = queue.then(async () => console.log(`${new Date().toISOString()}  ${event.type}  ${event.id}  ${await forward(o.forwardTo, o.secret, event)}`));
      },
      error: (e) => {
        const errs = Array.isArray(e) ? e : [e];
        console.error(`The service refused the subscription: ${errs.map((x: any) => `${x.extensions?.code ?? ""} ${x.message ?? x.reason ?? x}`.trim()).join("; ")}`);
        void stop(1);
      },
      complete: () => void stop(0),
    },
  );
}

void main();
