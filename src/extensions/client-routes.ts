/** Upload routes take the image itself as the body, not JSON (extensions.rest.ts). */
export const RAW_UPLOAD_PATHS = new Set(["/extensions/icon-upload", "/extensions/screenshot-upload"]);

// The only routes Basic extension client credentials reach (platform rule 3); any other path or verb is 403.
const CLIENT_ROUTES: [string, RegExp][] = [
  ["GET", /^\/extensions\/me\/installations\/?$/],
  ["GET", /^\/installations\/[^/]+\/webhook-secret\/?$/],
  ["POST", /^\/installations\/[^/]+\/api-key\/?$/],
  ["POST", /^\/installations\/[^/]+\/rotate-webhook-secret\/?$/],
];

/** `path` relative to /api/v1. */
export function acceptsClientCredentials(method: string, path: string) {
  return CLIENT_ROUTES.some(([m, re]) => m === method.toUpperCase() && re.test(path));
}
