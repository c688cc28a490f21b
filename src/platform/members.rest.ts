// /api/v1 routes of workspace invitations and members. Thin: parse, call, respond.
import { ctxOf, ok, send } from "../rest/http";
import { acceptInvite, createInvite, listInvites, resendInvite, revokeInvite } from "./invitations.service";
import { getMyMembership, listMembers, removeMember, updateMember } from "./members.service";
import { apiRouter } from "../rest/api-router";

export function membersRouter() {
  const r = apiRouter();

  r.post("/workspaces/:workspaceId/invites", async (req, res) => ok(res, await createInvite(ctxOf(req), req.params.workspaceId, req.body), 201));
  r.get("/workspaces/:workspaceId/invites", async (req, res) => {
    const { items, total, pagination } = await listInvites(ctxOf(req), req.params.workspaceId, req.query);
    await ok(res, { items, total }, 200, { pagination });
  });
  r.post("/workspaces/:workspaceId/invites/:id/resend", async (req, res) => ok(res, await resendInvite(ctxOf(req), req.params.workspaceId, req.params.id)));
  r.post("/workspaces/:workspaceId/invites/:id/revoke", async (req, res) => {
    await revokeInvite(ctxOf(req), req.params.workspaceId, req.params.id);
    await send(res, 204);
  });
  r.post("/invites/accept", async (req, res) => ok(res, await acceptInvite(ctxOf(req), req.body)));

  r.get("/workspaces/:workspaceId/members", async (req, res) => {
    const { items, total, pagination } = await listMembers(ctxOf(req), req.params.workspaceId, req.query);
    await ok(res, { items, total }, 200, { pagination });
  });
  r.get("/workspaces/:workspaceId/members/me", async (req, res) => ok(res, await getMyMembership(ctxOf(req), req.params.workspaceId)));
  r.patch("/workspaces/:workspaceId/members/:memberId", async (req, res) => ok(res, await updateMember(ctxOf(req), req.params.workspaceId, req.params.memberId, req.body)));
  r.delete("/workspaces/:workspaceId/members/:memberId", async (req, res) => {
    await removeMember(ctxOf(req), req.params.workspaceId, req.params.memberId);
    await send(res, 204);
  });

  return r;
}
