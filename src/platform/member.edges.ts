// The graph's member edges (issue 37): WorkspaceMember.user, the member's user account (the `User` type, new), and
// WorkspaceMember.invitations, the invitations that member sent (a connection: a member may send many; the one that
// made them is at most one and is the `acceptedMemberId` of an invitation, reachable from the invitation list).
// Dashboard-only like every member read, nullable, batched per request, held to the caller's workspace.
import { builder } from "../graphql/builder";
import { loader, pagedLoad } from "../graphql/loaders";
import { pageArgs, pageInput } from "../graphql/shared-types";
import { inviteView } from "./invitations.service";
import { invitationPagesBySender, type UserView, usersOfWorkspace } from "./member-edges.service";
import { InvitationPage, InvitationStatusEnum, MemberRef } from "./members.schema";

export const UserRef = builder.objectRef<UserView>("User").implement({
  description: "A dashboard user account: the person behind a workspace membership",
  fields: (t) => ({
    id: t.exposeID("id", { description: "Unique identifier (the membership's userId)" }),
    email: t.exposeString("email", { description: "Their sign-in email" }),
    name: t.exposeString("name", { nullable: true, description: "Their name, when known" }),
    createdAt: t.field({ type: "DateTime", description: "When the account was created", resolve: (u) => u.createdAt }),
  }),
});

builder.objectFields(MemberRef, (t) => ({
  user: t.field({
    type: UserRef,
    nullable: true,
    description: "The member's user account (dashboard sessions)",
    authScopes: { dashboard: true },
    resolve: (m, _a, ctx) => loader(ctx, "userById", (ids: string[]) => usersOfWorkspace(ctx, ids)).load(m.userId),
  }),
  invitations: t.field({
    type: InvitationPage,
    nullable: true,
    description: "The invitations this member sent, newest first (dashboard sessions with workspace:invite; without it this field alone errors)",
    authScopes: { dashboard: true },
    args: { status: t.arg({ type: InvitationStatusEnum, description: "Only this status" }), ...pageArgs(t) },
    resolve: async (m, a, ctx) => {
      const query = { ...pageInput(a), ...(a.status ? { status: a.status } : {}) };
      const page = await pagedLoad(ctx, "invitationsBySender", (ids, q) => invitationPagesBySender(ctx, ids, q), m.memberId, query);
      return { items: page.items.map(inviteView), pagination: page.pagination };
    },
  }),
}));
