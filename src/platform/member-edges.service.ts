// Batched reads for the graph's member edges: WorkspaceMember.user (the member's user account) and
// WorkspaceMember.invitations (the invitations the member sent). One statement for every member on a page, both held
// to the caller's workspace: a dashboard session, as every member read; the invitations need workspace:invite, the
// permission of the invitation list.
import { Prisma, type Invitation } from "../generated/prisma/client";
import type { DB } from "../db/sql";
import type { Ctx } from "../shared/context";
import { requireDashboard, requirePermission } from "../shared/guards";
import { type Page, pagesByParent, parseListQuery, pageAfter } from "../shared/pagination";
import { afterCondition, rankWithin } from "../db/keyset";
import { inviteFilters } from "./invitations.service";

export interface UserView {
  id: string;
  email: string;
  name: string | null;
  createdAt: string;
}

/** The user accounts behind members of the caller's workspace; a user who is no member of it (a forged id) is left out. */
export async function usersOfWorkspace(ctx: Ctx, ids: readonly string[]): Promise<Map<string, UserView>> {
  const p = requireDashboard(ctx);
  if (ids.length === 0) return new Map();
  const rows = await ctx.db.user.findMany({
    where: { id: { in: [...ids] }, members: { some: { workspaceId: p.workspace.id } } },
    select: { id: true, email: true, name: true, createdAt: true },
  });
  return new Map(rows.map((u) => [u.id, { id: u.id, email: u.email, name: u.name, createdAt: u.createdAt.toISOString() }]));
}

const INVITATION_COLUMNS = Object.values(Prisma.InvitationScalarFieldEnum) as (keyof DB["Invitation"] & string)[];

/** The invitations each member sent, newest first, one page each, of the caller's workspace only. */
export async function invitationPagesBySender(ctx: Ctx, memberIds: readonly string[], query: unknown): Promise<Map<string, Page<Invitation>>> {
  const p = requireDashboard(ctx);
  requirePermission(ctx, "workspace:invite");
  const page = parseListQuery(inviteFilters, query);
  if (memberIds.length === 0) return new Map();
  const after = pageAfter(page);
  const rows = await ctx.sql
    .with("r", (db) =>
      db
        .selectFrom("Invitation as i")
        .select((eb) => ["i.id", rankWithin(eb, "i", "invitedByMemberId").as("rn")])
        .where("i.invitedByMemberId", "in", [...memberIds])
        .where("i.workspaceId", "=", p.workspace.id)
        .$if(page.status !== undefined, (q) => q.where("i.status", "=", page.status!))
        .$if(after !== null, (q) => q.where((eb) => afterCondition(eb, "i", after!))),
    )
    .selectFrom("r")
    .innerJoin("Invitation as i", "i.id", "r.id")
    .select(INVITATION_COLUMNS.map((k) => `i.${k}` as const))
    .where("r.rn", "<=", page.limit + 1)
    .orderBy("i.createdAt", "desc")
    .orderBy("i.id", "desc")
    .execute();
  return pagesByParent(memberIds, rows as unknown as Invitation[], (i) => i.invitedByMemberId, page);
}
