// Workspace members and invitees for the team tests: members with given roles (each with a dashboard session), the
// session of a user who is no member yet (what `npm run bootstrap -- --user` mints), and the invitation link read
// back from the mail outbox the way an invitee would get it.
import { dispatchEmails } from "../../src/mail/mail.service";
import { mintUserSession } from "../../src/platform/bootstrap.service";
import { makeCtx } from "../../src/shared/context";
import { randomToken, sha256Hex } from "../../src/shared/crypto";
import type { TestApp } from "./app";
import type { client } from "./http";

export interface Actor {
  memberId: string;
  email: string;
  token: string;
}

export async function memberWith(
  t: TestApp,
  workspaceId: string,
  m: { workspaceRole?: "workspace_admin" | null; applicationRoles?: { applicationId: string; role: string }[]; environmentGrants?: Record<string, unknown>; email?: string },
): Promise<Actor> {
  const email = m.email ?? `m-${randomToken(8).toLowerCase()}@example.com`;
  const user = await t.deps.prisma.user.create({ data: { email } });
  const member = await t.deps.prisma.member.create({
    data: { workspaceId, userId: user.id, workspaceRole: m.workspaceRole ?? null, applicationRoles: m.applicationRoles ?? [], environmentGrants: (m.environmentGrants ?? { grantType: "all" }) as object },
  });
  const token = `dst_${randomToken(40)}`;
  await t.deps.prisma.dashboardSession.create({ data: { memberId: member.id, userId: user.id, tokenHash: sha256Hex(token) } });
  return { memberId: member.id, email, token };
}

/** A dashboard session for `email` through the bootstrap --user service (a user with no membership gets a user-only one). */
export async function userSession(t: TestApp, email: string) {
  return mintUserSession(makeCtx(t.deps), email);
}

/** Runs the mail job until the queue is empty, then reads the newest invitation email to `email` from the outbox and takes the token from its link. */
export async function inviteLinkFromOutbox(t: TestApp, api: ReturnType<typeof client>, ownerToken: string, email: string, applicationId?: string) {
  // the mail job handles one batch a run: run it until nothing is left, so a busy test file still finds its email
  for (let i = 0; i < 100; i++) {
    const r = await dispatchEmails(t.deps);
    if (r.sent + r.kept + r.retried + r.failed === 0) break;
  }
  // the invitation was made without X-Service-Application-Id: it is in the workspace's first application's outbox
  const appId = applicationId ?? (await t.deps.prisma.application.findFirstOrThrow({ where: { workspace: { members: { some: { sessions: { some: { tokenHash: sha256Hex(ownerToken) } } } } } }, orderBy: { createdAt: "asc" } })).id;
  const r = await api("GET", `emails?template=member.invitation&to=${encodeURIComponent(email)}`, { token: ownerToken, headers: { "x-service-application-id": appId } });
  if (r.status !== 200) throw new Error(`outbox read failed: ${r.status} ${JSON.stringify(r.body)}`);
  const mail = r.body.data[0];
  if (!mail) return null;
  const m = /(https?:\/\/[^\s"<]+\/invites\/(inv_[A-Za-z0-9]+))/.exec(mail.text ?? "");
  return { mail, url: m?.[1] ?? null, token: m?.[2] ?? null, count: r.body.data.length as number };
}
