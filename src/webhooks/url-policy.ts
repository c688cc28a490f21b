// Where a webhook endpoint may point: https in production (http too elsewhere), never at loopback, private,
// link-local or otherwise non-public addresses from production (decisions.md part 4). Checked twice: when the
// URL is saved, and again at connect time for every production delivery, against the address the connection
// actually uses, so a DNS answer that later changes (rebinding) cannot steer a delivery inward.
// Address classes come from ipaddr.js (the range table Express's proxy-addr relies on), not hand-written lists.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { DomainError } from "../shared/errors";
import type { Resolver } from "../shared/context";

/** dns.lookup's promise form with { all: true }: every address of a host. Tests inject a stub. */
export type { Resolver };

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

function publicV4(a: ipaddr.IPv4) {
  return a.range() === "unicast";
}

/**
 * True only for globally routable unicast addresses. IPv6 forms that carry an IPv4 address (IPv4-mapped
 * ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::a.b.c.d) are judged by the IPv4 address inside, so
 * `[::127.0.0.1]` and `[64:ff9b::7f00:1]` are loopback; other transition and reserved ranges are refused.
 */
export function isPublicAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  const addr = ipaddr.parse(ip);
  if (addr.kind() === "ipv4") return publicV4(addr as ipaddr.IPv4);
  const v6 = addr as ipaddr.IPv6;
  const parts = v6.parts;
  const embedded = () => ipaddr.fromByteArray(v6.toByteArray().slice(12)) as ipaddr.IPv4;
  if (parts.slice(0, 6).every((p) => p === 0)) return publicV4(embedded()); // IPv4-compatible ::/96 (incl. ::, ::1)
  switch (v6.range()) {
    case "unicast":
      return true;
    case "ipv4Mapped":
      return publicV4(embedded());
    case "rfc6052":
      return parts[2] === 0 && parts[3] === 0 && parts[4] === 0 && parts[5] === 0 && publicV4(embedded()); // 64:ff9b::/96 only
    default:
      return false;
  }
}

const isPrivateAddress = (ip: string) => !isPublicAddress(ip);

/** How one kind of outbound URL is named in its errors. */
export interface OutboundUrlRules {
  /** the error code (a 422 of the catalogue) */
  code: "invalid_webhook_url" | "invalid_script_url";
  /** "Webhook URLs", "Scripts": the subject of the messages */
  subject: string;
}

/**
 * The save-time check of any URL the service will fetch or post to (webhook endpoints, script sources, install
 * callbacks): absolute http(s) without credentials; https only and no loopback, private or link-local address in
 * production (every address the host resolves to). Returns the parsed URL.
 */
export async function checkOutboundUrl(raw: string, environmentKind: string, rules: OutboundUrlRules, resolve: Resolver = systemResolver): Promise<URL> {
  const invalid = (message: string) => new DomainError(rules.code, message);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(`${rules.subject} must be absolute http(s) URLs`);
  }
  const production = environmentKind === "production";
  if (url.protocol !== "https:" && !(url.protocol === "http:" && !production)) {
    throw invalid(production ? `${rules.subject} must use https in production` : `${rules.subject} must use https or http`);
  }
  if (url.username || url.password) throw invalid(`${rules.subject} must not carry credentials`);
  if (!url.hostname) throw invalid(`${rules.subject} need a host`);
  if (!production) return url;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (host === "localhost" || host.endsWith(".localhost")) throw invalid(`${rules.subject} cannot point at loopback addresses in production`);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await resolve(host)).map((a) => a.address);
    } catch {
      throw invalid(`The host ${host} could not be resolved`);
    }
  }
  if (addresses.length === 0 || addresses.some(isPrivateAddress)) {
    throw invalid(`${rules.subject} cannot point at loopback, private or link-local addresses in production`);
  }
  return url;
}

export async function checkWebhookUrl(raw: string, environmentKind: string, resolve: Resolver = systemResolver) {
  await checkOutboundUrl(raw, environmentKind, { code: "invalid_webhook_url", subject: "Webhook URLs" }, resolve);
  return raw;
}

/** The error a refused connection reports (recorded as the delivery attempt's error). */
export class BlockedAddressError extends Error {
  readonly code = "blocked_address";
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, which production endpoints may not reach`);
  }
}

/**
 * A `lookup` for net/tls connect options: resolves with `resolve` and fails the connection when any answer is
 * not a public address. Production deliveries connect through it (delivery.worker.ts).
 */
export function guardedLookup(resolve: Resolver) {
  return (hostname: string, options: { all?: boolean; family?: number | string }, callback: (err: Error | null, address: any, family?: number) => void) => {
    const literal = hostname.replace(/^\[|\]$/g, "");
    const answers: Promise<LookupAddress[]> = isIP(literal) ? Promise.resolve([{ address: literal, family: isIP(literal) }]) : resolve(hostname);
    answers.then(
      (list) => {
        const bad = list.find((a) => isPrivateAddress(a.address));
        if (bad || list.length === 0) return callback(new BlockedAddressError(hostname, bad?.address ?? "no address"), null);
        if (options?.all) return callback(null, list);
        callback(null, list[0].address, list[0].family);
      },
      (err) => callback(err, null),
    );
  };
}

/**
 * Throws BlockedAddressError when `url` names a private, loopback or link-local address literally: an IP literal
 * is connected to without a lookup, so guardedLookup never sees it. Call it before sending to a production endpoint.
 */
export function assertPublicLiteral(url: string | URL) {
  const literal = new URL(url).hostname.replace(/^\[|\]$/g, "");
  if (isIP(literal) && isPrivateAddress(literal)) throw new BlockedAddressError(literal, literal);
}

/** The blocked address behind a failed fetch (thrown directly, or as the cause undici wraps it in), else null. */
export function blockedAddressOf(e: unknown): BlockedAddressError | null {
  if (e instanceof BlockedAddressError) return e;
  const cause = (e as { cause?: unknown } | null)?.cause;
  return cause instanceof BlockedAddressError ? cause : null;
}

