// OpenAPI paths of the dashboard user's authorized OAuth apps (src/oauth/oauth.rest.ts), registered by document.ts.
// The authorization server's own endpoints (/oauth/authorize, /oauth/token, ...) are standard OAuth and described
// by its metadata document (/.well-known/oauth-authorization-server), not here.
import { z } from "zod";
import type { Register } from "./operation";

const ts = z.iso.datetime();
const AuthorizedApp = z
  .object({
    id: z.string().meta({ description: "The grant id; its access tokens carry it" }),
    clientId: z.string(),
    clientName: z.string().nullable(),
    application: z.object({ id: z.string(), name: z.string(), slug: z.string() }),
    environment: z.object({ id: z.string(), name: z.string(), slug: z.string(), kind: z.enum(["production", "non_production"]) }),
    scopes: z.array(z.string()),
    createdAt: ts,
    revokedAt: ts.nullable(),
  })
  .meta({ id: "AuthorizedApp" });

type Reg = Register;

export function registerOAuth(r: Reg) {
  const tag = "oauth";
  r("get", "/oauth/grants", { tag, summary: "The OAuth apps the calling member authorized and has not revoked, newest first (dashboard session only)", ok: [200, z.array(AuthorizedApp)] });
  r("delete", "/oauth/grants/{id}", { tag, summary: "Revoke an authorized app: its access and refresh tokens stop working at once (dashboard session only; another member's or an already revoked grant is 404)", params: { id: "Authorized app (grant)" }, ok: [204, null] });
}
