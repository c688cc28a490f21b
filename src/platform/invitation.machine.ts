// Invitation statuses as data. Every status write goes through moveInvitation: a compare-and-set on the status the
// caller read, so a revoke racing an accept (or the expiry job) cannot both win.
import type { Invitation, Prisma } from "../generated/prisma/client";
import type { Ctx } from "../shared/context";
import { DomainError } from "../shared/errors";

export const INVITATION_STATUSES = ["pending", "accepted", "revoked", "expired"] as const;
type InvitationStatus = (typeof INVITATION_STATUSES)[number];

/** pending -> accepted (member created, token consumed), revoked (token dead at once), expired (TTL elapsed). */
const INVITATION_TRANSITIONS: Record<InvitationStatus, InvitationStatus[]> = {
  pending: ["accepted", "revoked", "expired"],
  accepted: [],
  revoked: [],
  expired: [],
};

export const inviteNotPending = (status: string) =>
  new DomainError("invite_not_pending", `The invitation is ${status}, not pending`, { status });

/** Moves the invitation from the status the caller read; 409 invite_not_pending when it is not (or no longer) pending. */
export async function moveInvitation(ctx: Ctx, inv: Pick<Invitation, "id" | "status">, to: InvitationStatus, data: Prisma.InvitationUpdateManyMutationInput = {}): Promise<Invitation> {
  if (!(INVITATION_TRANSITIONS[inv.status as InvitationStatus] ?? []).includes(to)) throw inviteNotPending(inv.status);
  const { count } = await ctx.db.invitation.updateMany({ where: { id: inv.id, status: inv.status }, data: { ...data, status: to, updatedAt: ctx.clock.now() } });
  if (count !== 1) {
    const now = await ctx.db.invitation.findUnique({ where: { id: inv.id }, select: { status: true } });
    throw inviteNotPending(now?.status ?? "gone");
  }
  return ctx.db.invitation.findUniqueOrThrow({ where: { id: inv.id } });
}
