// OpenAPI paths of platform billing (src/billing/billing.rest.ts) and partner referrals (src/partners/partners.rest.ts),
// registered by document.ts.
import { z } from "zod";
import { addPaymentMethodInput, PLAN_IDS, subscribeInput } from "../billing/billing.service";
import { acceptHandoffInput, createTrialInput, HANDOFF_STATES } from "../partners/partners.service";
import { pageQuery } from "../shared/pagination";
import type { Register } from "./operation";
import { orNull } from "./schemas";

const ts = z.iso.datetime();

const PlatformSubscription = z
  .object({
    id: z.string(),
    plan: z.enum(PLAN_IDS),
    status: z.enum(["active", "past_due", "cancelled"]),
    amount: z.number().int(),
    currency: z.string(),
    interval: z.literal("month"),
    currentPeriodStart: ts,
    currentPeriodEnd: ts,
    cancelAtPeriodEnd: z.boolean(),
    cancelledAt: ts.nullable(),
  })
  .meta({ id: "PlatformSubscription" });

const WorkspaceBilling = z
  .object({
    workspaceId: z.string(),
    live: z.boolean(),
    state: z.enum(["live", "trialing", "workspace_not_live", "workspace_not_entitled_for_live", "trial_expired"]).meta({ description: "What production credentials get now" }),
    trialEndsAt: ts.nullable(),
    subscription: orNull(PlatformSubscription),
    defaultPaymentMethodId: z.string().nullable(),
    backupPaymentMethodId: z.string().nullable().meta({ description: "The card a renewal charges when the default declines" }),
  })
  .meta({ id: "WorkspaceBilling" });

const PlatformPaymentMethod = z
  .object({
    id: z.string().meta({ description: "wpm_…" }),
    cardBrand: z.string(),
    cardLastFour: z.string(),
    cardExpMonth: z.number().int(),
    cardExpYear: z.number().int(),
    isDefault: z.boolean(),
    isBackup: z.boolean().meta({ description: "The card a renewal charges when the default declines" }),
    createdAt: ts,
  })
  .meta({ id: "PlatformPaymentMethod" });

const PartnerReferral = z
  .object({
    referralId: z.string(),
    workspaceId: z.string(),
    workspaceName: z.string(),
    clientEmail: z.string(),
    handoffState: z.enum(HANDOFF_STATES as ["not_started", "invited", "claimed"]),
    trialEndsAt: ts.nullable(),
    invitedAt: ts.nullable(),
    handoffExpiresAt: ts.nullable(),
    claimedAt: ts.nullable(),
    createdAt: ts,
  })
  .meta({ id: "PartnerReferral" });

const HandoffAccepted = z
  .object({ referralId: z.string(), workspaceId: z.string(), memberId: z.string(), dashboardToken: z.string().nullable().meta({ description: "Shown once" }) })
  .meta({ id: "PartnerHandoffAccepted" });

type Reg = Register;

export function registerBilling(r: Reg) {
  const tag = "billing";
  const pm = { id: "Payment method (wpm_…)" };
  r("get", "/billing", { tag, summary: "Where the workspace stands: live, trial, subscription (billing:read; dashboard: owners and workspace admins)", ok: [200, WorkspaceBilling] });
  r("post", "/billing/subscribe", { tag, summary: "Subscribe and pay the first month; the workspace is live at once (billing:write; dashboard: owner only)", body: subscribeInput, ok: [200, WorkspaceBilling] });
  r("post", "/billing/cancel", { tag, summary: "Cancel at period end (billing:write; dashboard: owner only)", ok: [200, WorkspaceBilling] });
  r("post", "/billing/resume", { tag, summary: "Undo a cancellation before the period ends (billing:write; dashboard: owner only)", ok: [200, WorkspaceBilling] });
  r("get", "/billing/payment-methods", { tag, summary: "The workspace's cards (billing:read; dashboard: owners and workspace admins)", ok: [200, z.array(PlatformPaymentMethod)] });
  r("post", "/billing/payment-methods", { tag, summary: "Add a card from a test token (billing:write; dashboard: owner only)", body: addPaymentMethodInput, ok: [201, PlatformPaymentMethod] });
  r("post", "/billing/payment-methods/{id}/default", { tag, summary: "Make a card the default (billing:write; dashboard: owner only)", params: pm, ok: [200, PlatformPaymentMethod] });
  r("post", "/billing/payment-methods/{id}/backup", {
    tag,
    summary: "Make a card the backup, charged when a renewal on the default declines; replaces the previous backup (409 cannot_backup_default for the default card) (billing:write; dashboard: owner only)",
    params: pm,
    ok: [200, PlatformPaymentMethod],
  });
  r("delete", "/billing/payment-methods/{id}", { tag, summary: "Remove a card (billing:write; dashboard: owner only)", params: pm, ok: [204, null] });

  const ptag = "partners";
  const ref = { referralId: "Referral" };
  r("post", "/partner/trials", { tag: ptag, summary: "Open a client trial workspace (dashboard session of a partner workspace)", body: createTrialInput, ok: [201, PartnerReferral] });
  r("get", "/partner/me/referrals", { tag: ptag, summary: "The partner's client trials, newest first", query: pageQuery, ok: [200, PartnerReferral, "page"] });
  r("post", "/partner/trials/{referralId}/claim-billing", { tag: ptag, summary: "Hand the workspace and its billing to the client: mails a handoff code (409 client_owns_workspace after the handoff)", params: ref, ok: [200, PartnerReferral] });
  r("post", "/partner/trials/{referralId}/revoke-handoff", { tag: ptag, summary: "Withdraw a pending handoff (409 handoff_not_revocable once accepted)", params: ref, ok: [200, PartnerReferral] });
  r("post", "/partner/handoffs/accept", { tag: ptag, keyless: true, summary: "The client accepts with the mailed code (no credential); returns a dashboard session once", body: acceptHandoffInput, ok: [200, HandoffAccepted] });
}
