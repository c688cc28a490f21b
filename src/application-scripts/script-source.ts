// Where a `src` script's bytes come from: the URL is fetched once, when the script is saved, and the copy is what the
// checkout page loads (the buyer's browser never contacts the original host). The same address rules as webhook
// URLs (decisions.md part 4): https in production (http also elsewhere, for local development), and from
// production never an address on a loopback, private or link-local network, checked at save time and again at
// connect time against the address actually used.
import { Agent, fetch as guardedFetch } from "undici";
import { DomainError } from "../shared/errors";
import { BlockedAddressError, checkOutboundUrl, guardedLookup, type Resolver, systemResolver } from "../webhooks/url-policy";

/** Largest script body (inline or fetched), in bytes. */
export const MAX_SCRIPT_BYTES = 512 * 1024;
const FETCH_TIMEOUT_MS = 10_000;

const invalidUrl = (message: string) => new DomainError("invalid_script_url", message);
const fetchFailed = (message: string, details?: Record<string, unknown>) => new DomainError("script_fetch_failed", message, details);
export const tooLarge = (size: number | null) =>
  new DomainError("script_too_large", `A script may be at most ${MAX_SCRIPT_BYTES} bytes${size !== null ? ` (this one is ${size})` : ""}`, { maxBytes: MAX_SCRIPT_BYTES });

/** Checks the URL's form and, in production, where it resolves (the webhook URL rules). */
export async function checkScriptUrl(raw: string, environmentKind: string, resolve: Resolver = systemResolver): Promise<URL> {
  return checkOutboundUrl(raw, environmentKind, { code: "invalid_script_url", subject: "Script sources" }, resolve);
}

/** Fetches the script once (no redirects, 10 s, at most MAX_SCRIPT_BYTES) and returns its exact bytes. */
export async function fetchScript(url: URL, environmentKind: string, resolve: Resolver = systemResolver): Promise<Buffer> {
  const production = environmentKind === "production";
  const agent = production ? new Agent({ connect: { lookup: guardedLookup(resolve) as any } }) : null;
  try {
    const send = production ? (guardedFetch as unknown as typeof fetch) : fetch;
    const res = await send(url, {
      ...(agent ? ({ dispatcher: agent } as object) : {}),
      headers: { accept: "text/javascript, application/javascript, */*;q=0.1", "user-agent": "quote-to-cash-application-scripts/1" },
      redirect: "manual",
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel();
      throw fetchFailed(`${url.origin} answered a redirect (HTTP ${res.status}); give the final URL`, { status: res.status });
    }
    if (res.status < 200 || res.status >= 300) {
      await res.body?.cancel();
      throw fetchFailed(`Fetching the script answered HTTP ${res.status}`, { status: res.status });
    }
    const declared = Number(res.headers.get("content-length"));
    if (Number.isFinite(declared) && declared > MAX_SCRIPT_BYTES) {
      await res.body?.cancel();
      throw tooLarge(declared);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    if (res.body) {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        size += chunk.byteLength;
        if (size > MAX_SCRIPT_BYTES) throw tooLarge(null);
        chunks.push(Buffer.from(chunk));
      }
    }
    return Buffer.concat(chunks);
  } catch (e: any) {
    if (e instanceof DomainError) throw e;
    const blocked = e instanceof BlockedAddressError ? e : e?.cause instanceof BlockedAddressError ? e.cause : null;
    if (blocked) throw invalidUrl("Production scripts cannot be fetched from loopback, private or link-local addresses");
    if (e?.name === "TimeoutError") throw fetchFailed(`Fetching the script took longer than ${FETCH_TIMEOUT_MS / 1000} s`);
    throw fetchFailed(`The script could not be fetched: ${String(e?.cause?.code ?? e?.message ?? e).slice(0, 200)}`);
  } finally {
    await agent?.close().catch(() => {});
  }
}
