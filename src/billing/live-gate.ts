// The live gate (platform.md part 5, commerce.md part 7): a production credential (an API key pinned to a
// production environment, or a dashboard session acting in one) answers 402 until its workspace is live. Sandbox
// and custom non-production environments are never gated. authenticateRequest() computes it once per request from
// the principal (whose billing facts are cached with it and invalidated when billing changes); the REST and GraphQL
// adapters enforce it, except on the routes about the workspace itself, which an owner needs to go live.
import { getOperationAST, Kind, type DocumentNode, type SelectionSetNode } from "graphql";
import { DomainError } from "../shared/errors";
import type { Principal, WorkspaceBilling } from "../platform/principal";

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
  return new DomainError(state, 402, MESSAGES[state], { workspaceId: p.workspace.id });
}

/**
 * REST paths (relative to /api/v1) the gate lets through: the workspace's own routes. Billing and partner routes are
 * how a workspace goes live; the environment catalog and whoami let a dashboard find its sandbox meanwhile.
 */
const EXEMPT_PATH = /^\/(?:whoami\/?$|billing(?:\/|$)|partner(?:\/|$)|workspaces\/)/;

export function gateExemptPath(path: string) {
  return EXEMPT_PATH.test(path);
}

/** The GraphQL root fields of those same routes. */
export const GATE_EXEMPT_FIELDS = new Set([
  "viewer",
  "environments",
  "createEnvironment",
  "archiveEnvironment",
  "billing",
  "billingPaymentMethods",
  "subscribeBilling",
  "cancelBilling",
  "resumeBilling",
  "addBillingPaymentMethod",
  "removeBillingPaymentMethod",
  "setDefaultBillingPaymentMethod",
  "partnerReferrals",
  "createPartnerTrial",
  "claimPartnerBilling",
  "revokePartnerHandoff",
  "acceptPartnerHandoff",
]);

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
