// GraphQL for partner referrals: the same services and views as REST (partners.rest.ts).
import { builder } from "../graphql/builder";
import { describedEnum, pageOf, pageArgs } from "../graphql/shared-types";
import { cursorOf } from "../shared/pagination";
import { parsePage } from "../shared/pagination";
import { revealed } from "../shared/secrets";
import { acceptHandoff, claimBilling, createTrial, type HandoffState, listReferrals, referralView, type ReferralView, revokeHandoff } from "./partners.service";

const HandoffEnum = describedEnum<HandoffState>("HandoffState", "Where the handoff of a client trial is", {
  not_started: "The partner runs the trial; no handoff code is pending",
  invited: "claim-billing mailed the client a handoff code",
  claimed: "The client accepted: it owns the workspace and its billing",
});

const ReferralRef = builder.objectRef<ReferralView>("PartnerReferral").implement({
  description: "A client trial a partner opened",
  fields: (t) => ({
    referralId: t.exposeID("referralId", { description: "The referral's id" }),
    workspaceId: t.exposeID("workspaceId", { description: "The client's workspace" }),
    workspaceName: t.exposeString("workspaceName", { description: "The client workspace's name" }),
    clientEmail: t.exposeString("clientEmail", { description: "The client's email (lower-cased)" }),
    handoffState: t.field({ type: HandoffEnum, description: "Where the handoff is", resolve: (r) => r.handoffState }),
    trialEndsAt: t.field({ type: "DateTime", nullable: true, description: "End of the trial", resolve: (r) => r.trialEndsAt }),
    invitedAt: t.field({ type: "DateTime", nullable: true, description: "When the last handoff code was mailed", resolve: (r) => r.invitedAt }),
    handoffExpiresAt: t.field({ type: "DateTime", nullable: true, description: "When the pending handoff code expires", resolve: (r) => r.handoffExpiresAt }),
    claimedAt: t.field({ type: "DateTime", nullable: true, description: "When the client accepted", resolve: (r) => r.claimedAt }),
    createdAt: t.field({ type: "DateTime", description: "When the trial was opened", resolve: (r) => r.createdAt }),
  }),
});
const ReferralPage = pageOf("PartnerReferralPage", ReferralRef, "referrals", (r: { referralId: string; createdAt: string }) => cursorOf({ createdAt: r.createdAt, id: r.referralId }));

type Accepted = Awaited<ReturnType<typeof acceptHandoff>>;
const AcceptedRef = builder.objectRef<Accepted>("PartnerHandoffAccepted").implement({
  description: "The client now owns the workspace",
  fields: (t) => ({
    referralId: t.exposeID("referralId", { description: "The referral" }),
    workspaceId: t.exposeID("workspaceId", { description: "The workspace the client now owns" }),
    memberId: t.exposeID("memberId", { description: "The client's membership (owner)" }),
    dashboardToken: t.string({ nullable: true, description: "A dashboard session for the client, shown once; null on an Idempotency-Key replay", resolve: (a, _x, ctx) => revealed(a.dashboardToken, ctx) }),
  }),
});

const referralId = "The referral's id";
builder.queryFields((t) => ({
  partnerReferrals: t.field({
    type: ReferralPage,
    description: "The calling partner's client trials, newest first (dashboard sessions of a partner workspace)",
    authScopes: { dashboard: true },
    args: { ...pageArgs(t) },
    resolve: async (_r, a, ctx) => {
      const page = await listReferrals(ctx, parsePage({ limit: (a.first ?? a.limit) ?? undefined, cursor: (a.after ?? a.cursor) ?? undefined }));
      return { items: page.items.map(referralView), pagination: page.pagination };
    },
  }),
}));

builder.mutationFields((t) => ({
  createPartnerTrial: t.field({
    type: ReferralRef,
    description: "Opens a 14-day trial workspace for a client (dashboard sessions of a partner workspace)",
    authScopes: { dashboard: true },
    args: {
      clientEmail: t.arg.string({ required: true, description: "The client who will own the workspace" }),
      workspaceName: t.arg.string({ required: true, description: "The client workspace's name" }),
    },
    resolve: (_r, a, ctx) => createTrial(ctx, { clientEmail: a.clientEmail, workspaceName: a.workspaceName }),
  }),
  claimPartnerBilling: t.field({
    type: ReferralRef,
    description: "Hands the workspace and its billing to the client: mails a handoff code (409 client_owns_workspace after the handoff)",
    authScopes: { dashboard: true },
    args: { referralId: t.arg.id({ required: true, description: referralId }) },
    resolve: (_r, a, ctx) => claimBilling(ctx, String(a.referralId)),
  }),
  revokePartnerHandoff: t.field({
    type: ReferralRef,
    description: "Withdraws a pending handoff (409 handoff_not_revocable once the client accepted)",
    authScopes: { dashboard: true },
    args: { referralId: t.arg.id({ required: true, description: referralId }) },
    resolve: (_r, a, ctx) => revokeHandoff(ctx, String(a.referralId)),
  }),
  acceptPartnerHandoff: t.field({
    type: AcceptedRef,
    description: "The client accepts with the mailed handoff code (no credential needed; 404 for an unknown, used or expired code)",
    args: { token: t.arg.string({ required: true, description: "The handoff code (hof_…)" }) },
    resolve: (_r, a, ctx) => acceptHandoff(ctx, { token: a.token }),
  }),
}));
