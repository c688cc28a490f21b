// The live gate (platform.md part 5, commerce.md part 7): a production credential (an API key pinned to a
// production environment, or a dashboard session acting in one) answers 402 until its workspace is live. Sandbox
// and custom non-production environments are never gated. authenticateRequest() computes it once per request from
// the principal (whose billing facts are cached with it and invalidated when billing changes); the REST and GraphQL
// adapters enforce it, except on the workspace's own operations (GATE_EXEMPT), which an owner needs to go live.
import { getOperationAST, Kind, type DocumentNode, type SelectionSetNode } from "graphql";
import { DomainError } from "../shared/errors";
import type { Principal, WorkspaceBilling } from "../shared/principal";

export type BillingState = "live" | "trialing" | "workspace_not_live" | "workspace_not_entitled_for_live" | "trial_expired";

/** Where a workspace stands for production traffic at `now`. */
export function billingState(b: WorkspaceBilling, now: Date): BillingState {
  if (b.live && !(b.liveUntil && new Date(b.liveUntil) <= now)) return "live";
  // It had a paid subscription that lapsed (cancelled at period end, or a renewal failed).
  if (b.subscriptionStatus) return "workspace_not_entitled_for_live";
  if (b.trialEndsAt) {
    if (new Date(b.trialEndsAt) > now) return "trialing";
    return b.hasPaymentMethod ? "workspace_not_entitled_for_live" : "trial_expired";
  }
  return "workspace_not_live";
}

const MESSAGES: Record<Exclude<BillingState, "live" | "trialing">, string> = {
  workspace_not_live: "This workspace is not live yet: production credentials work once it subscribes (POST /billing/subscribe). Use a sandbox key meanwhile",
  workspace_not_entitled_for_live: "This workspace has no active paying subscription: production credentials are paused until it subscribes again (POST /billing/subscribe)",
  trial_expired: "The workspace's trial ended without a payment method: add one and subscribe (POST /billing/subscribe) to use production credentials",
};

/** The 402 a production credential gets, or null when it may go on. */
export function liveGate(p: Principal, now: Date): DomainError | null {
  if (p.environment.kind !== "production") return null;
  const state = billingState(p.billing, now);
  if (state === "live" || state === "trialing") return null;
  return new DomainError(state, MESSAGES[state], { workspaceId: p.workspace.id });
}

/**
 * The operations the gate lets through: the workspace's own, which an owner needs to go live or to run the workspace
 * meanwhile. Billing and partner routes are how a workspace goes live; whoami and the environment catalog let a
 * dashboard find its sandbox; team management (invitations, members, accepting an invitation) is the workspace's
 * people, not its production traffic. Each REST route (as restRoutes() lists it, relative to /api/v1) with its GraphQL
 * root field: REST and GraphQL both derive their exemptions from this one table, so they cannot drift apart
 * (test/graphql-parity.test.ts checks every route against its field).
 */
export const GATE_EXEMPT: Readonly<Record<string, string>> = {
  "GET /whoami": "viewer",
  "GET /workspaces/:workspaceId/environments": "environments",
  "POST /workspaces/:workspaceId/environments": "createEnvironment",
  "DELETE /workspaces/:workspaceId/environments/:environmentId": "archiveEnvironment",
  "GET /workspaces/:workspaceId/invites": "invites",
  "POST /workspaces/:workspaceId/invites": "createInvite",
  "POST /workspaces/:workspaceId/invites/:id/resend": "resendInvite",
  "POST /workspaces/:workspaceId/invites/:id/revoke": "revokeInvite",
  "POST /invites/accept": "acceptInvite",
  "GET /workspaces/:workspaceId/members": "members",
  "GET /workspaces/:workspaceId/members/me": "myMembership",
  "PATCH /workspaces/:workspaceId/members/:memberId": "updateMember",
  "DELETE /workspaces/:workspaceId/members/:memberId": "removeMember",
  "GET /billing": "billing",
  "POST /billing/subscribe": "subscribeBilling",
  "POST /billing/cancel": "cancelBilling",
  "POST /billing/resume": "resumeBilling",
  "GET /billing/payment-methods": "billingPaymentMethods",
  "POST /billing/payment-methods": "addBillingPaymentMethod",
  "POST /billing/payment-methods/:id/default": "setDefaultBillingPaymentMethod",
  "POST /billing/payment-methods/:id/backup": "setBackupBillingPaymentMethod",
  "DELETE /billing/payment-methods/:id": "removeBillingPaymentMethod",
  "POST /partner/trials": "createPartnerTrial",
  "GET /partner/me/referrals": "partnerReferrals",
  "POST /partner/trials/:referralId/claim-billing": "claimPartnerBilling",
  "POST /partner/trials/:referralId/revoke-handoff": "revokePartnerHandoff",
  "POST /partner/handoffs/accept": "acceptPartnerHandoff",
};

/** Method -> path patterns of the exempt routes (`:param` is one path segment; Express matches a trailing slash). */
const EXEMPT_ROUTES = new Map<string, RegExp[]>();
for (const route of Object.keys(GATE_EXEMPT)) {
  const [method, path] = route.split(" ");
  const re = new RegExp(`^${path.replace(/:[A-Za-z]+/g, "[^/]+")}/?$`, "i");
  EXEMPT_ROUTES.set(method, [...(EXEMPT_ROUTES.get(method) ?? []), re]);
}

/** Whether a REST request (path relative to /api/v1) is one of the exempt routes. HEAD is answered by GET routes. */
export function gateExemptRoute(method: string, path: string): boolean {
  const m = method.toUpperCase();
  return (EXEMPT_ROUTES.get(m === "HEAD" ? "GET" : m) ?? []).some((re) => re.test(path));
}

/** The GraphQL root fields of those same routes. */
export const GATE_EXEMPT_FIELDS: ReadonlySet<string> = new Set(Object.values(GATE_EXEMPT));

/** Whether an operation selects any gated root field (fragments at the root are followed). */
export function operationIsGated(document: DocumentNode, operationName?: string | null): boolean {
  const op = getOperationAST(document, operationName ?? undefined);
  if (!op) return true;
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));
  const seen = new Set<string>();
  const gated = (set: SelectionSetNode): boolean =>
    set.selections.some((s) => {
      if (s.kind === Kind.FIELD) return !s.name.value.startsWith("__") && !GATE_EXEMPT_FIELDS.has(s.name.value);
      if (s.kind === Kind.INLINE_FRAGMENT) return gated(s.selectionSet);
      if (seen.has(s.name.value)) return false;
      seen.add(s.name.value);
      const f = fragments.get(s.name.value);
      return f ? gated(f.selectionSet) : true;
    });
  return gated(op.selectionSet);
}
