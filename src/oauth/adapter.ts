// Storage for the authorization server (oidc-provider's adapter interface) on one table, OAuthRecord, so every
// process shares codes, refresh tokens, registered clients, interactions and grants.
//
// Single use holds across processes: consume() is one conditional UPDATE, and the loser of a race (a code or a
// refresh token presented twice at once) gets invalid_grant. Revoking a grant (the revocation endpoint, a reused
// refresh token, the user's "revoke" in the authorized-apps list) marks its OAuthGrant row revoked, which every
// API request checks, so its access tokens die at once everywhere.
import type { Adapter, AdapterPayload } from "oidc-provider";
import type { PrismaClient } from "../generated/prisma/client";
import { Prisma } from "../generated/prisma/client";

/** Marks our grant row revoked (idempotent); `reason` is recorded when none was yet. */
export async function markGrantRevoked(prisma: PrismaClient, grantId: string, reason: string | null, now = new Date()) {
  await prisma.oAuthGrant.updateMany({ where: { id: grantId, revokedAt: null }, data: { revokedAt: now, revokedReason: reason } });
  if (reason) await prisma.oAuthGrant.updateMany({ where: { id: grantId, revokedReason: null }, data: { revokedReason: reason } });
}

export function prismaAdapter(prisma: PrismaClient, onConsumeRace: () => Error) {
  return class PrismaOidcAdapter implements Adapter {
    constructor(private readonly kind: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const data = {
        payload: payload as Prisma.InputJsonValue,
        grantId: payload.grantId ?? null,
        uid: payload.uid ?? null,
        userCode: payload.userCode ?? null,
        expiresAt: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
      };
      await prisma.oAuthRecord.upsert({ where: { kind_id: { kind: this.kind, id } }, create: { kind: this.kind, id, ...data }, update: data });
    }

    private async findWhere(where: Prisma.OAuthRecordWhereInput): Promise<AdapterPayload | undefined> {
      const row = await prisma.oAuthRecord.findFirst({ where: { kind: this.kind, ...where, OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] } });
      if (!row) return undefined;
      const payload = row.payload as AdapterPayload;
      return row.consumedAt ? { ...payload, consumed: Math.floor(row.consumedAt.getTime() / 1000) } : payload;
    }

    find(id: string) {
      return this.findWhere({ id });
    }

    findByUid(uid: string) {
      return this.findWhere({ uid });
    }

    findByUserCode(userCode: string) {
      return this.findWhere({ userCode });
    }

    async consume(id: string): Promise<void> {
      const { count } = await prisma.oAuthRecord.updateMany({ where: { kind: this.kind, id, consumedAt: null }, data: { consumedAt: new Date() } });
      if (count === 0) throw onConsumeRace();
    }

    async destroy(id: string): Promise<void> {
      await prisma.oAuthRecord.deleteMany({ where: { kind: this.kind, id } });
      if (this.kind === "Grant") await markGrantRevoked(prisma, id, null);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await markGrantRevoked(prisma, grantId, null);
      await prisma.oAuthRecord.deleteMany({ where: { kind: this.kind, grantId } });
    }
  };
}
