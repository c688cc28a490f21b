// Where a webhook endpoint may point: https in production (http too elsewhere), never at loopback, private
// or link-local addresses from production (decisions.md part 4).
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { DomainError } from "../shared/errors";

const blocked = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["224.0.0.0", 4], ["240.0.0.0", 4],
] as const) blocked.addSubnet(net, bits, "ipv4");
// (BlockList already matches IPv4-mapped IPv6 addresses against the IPv4 rules above.)
for (const [net, bits] of [["::", 128], ["::1", 128], ["fc00::", 7], ["fe80::", 10], ["ff00::", 8]] as const) {
  blocked.addSubnet(net, bits, "ipv6");
}

export function isPrivateAddress(ip: string) {
  const v = isIP(ip);
  if (v === 0) return false;
  return blocked.check(ip, v === 4 ? "ipv4" : "ipv6");
}

const invalid = (message: string) => new DomainError("invalid_webhook_url", 422, message);

export async function checkWebhookUrl(raw: string, environmentKind: string, resolve = lookup) {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid("url must be an absolute http(s) URL");
  }
  const production = environmentKind === "production";
  if (url.protocol !== "https:" && !(url.protocol === "http:" && !production)) {
    throw invalid(production ? "Production webhook endpoints must use https" : "Webhook URLs must use https or http");
  }
  if (url.username || url.password) throw invalid("Webhook URLs must not carry credentials");
  if (!url.hostname) throw invalid("Webhook URL has no host");
  if (!production) return raw;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (host === "localhost" || host.endsWith(".localhost")) throw invalid("Production webhook endpoints cannot point at loopback addresses");
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await resolve(host, { all: true })).map((a) => a.address);
    } catch {
      throw invalid(`The host ${host} could not be resolved`);
    }
  }
  if (addresses.some(isPrivateAddress)) {
    throw invalid("Production webhook endpoints cannot point at loopback, private or link-local addresses");
  }
  return raw;
}
