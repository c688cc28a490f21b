// Connectors: what "an active payment connection" and "an active Invoice Terms connector" mean (decisions.md 2).
import { z } from "zod";
import type { Connector } from "../generated/prisma/client";
import type { Ctx } from "../shared/context";
import { errors, parseInput } from "../shared/errors";
import { keyset, type PageQuery, toPage } from "../shared/pagination";
import { requirePermission, requireScope, requireTenant } from "./auth.service";
import { isUuid } from "../shared/ids";

export const CONNECTOR_KINDS = ["card", "invoice_terms"] as const;
export const CONNECTOR_PROVIDERS = ["test"] as const;

export const createConnectorInput = z.strictObject({
  kind: z.enum(CONNECTOR_KINDS),
  provider: z.enum(CONNECTOR_PROVIDERS),
});

export function connectorView(c: Connector) {
  return { id: c.id, kind: c.kind, provider: c.provider, status: c.status, applicationId: c.applicationId, environmentId: c.environmentId, createdAt: c.createdAt.toISOString() };
}

export async function listConnectors(ctx: Ctx, page: PageQuery) {
  requireScope(ctx, "connectors:read");
  const t = requireTenant(ctx);
  const ks = keyset(page);
  const rows = await ctx.db.connector.findMany({
    where: { applicationId: t.applicationId, environmentId: t.environmentId, ...ks.where },
    orderBy: ks.orderBy,
    take: ks.take,
  });
  return toPage(rows, page);
}

export async function getConnector(ctx: Ctx, id: string) {
  requireScope(ctx, "connectors:read");
  const t = requireTenant(ctx);
  const row = isUuid(id)
    ? await ctx.db.connector.findFirst({ where: { id, applicationId: t.applicationId, environmentId: t.environmentId } })
    : null;
  if (!row) throw errors.notFound("Connector");
  return row;
}

export async function createConnector(ctx: Ctx, body: unknown) {
  requireScope(ctx, "connectors:write");
  const input = parseInput(createConnectorInput, body);
  const t = requireTenant(ctx);
  requirePermission(ctx, "application:connectors:write");
  return ctx.db.connector.create({ data: { applicationId: t.applicationId, environmentId: t.environmentId, kind: input.kind, provider: input.provider } });
}

export async function deactivateConnector(ctx: Ctx, id: string) {
  requireScope(ctx, "connectors:write");
  const t = requireTenant(ctx);
  requirePermission(ctx, "application:connectors:write");
  if (!isUuid(id)) throw errors.notFound("Connector");
  const res = await ctx.db.connector.updateMany({
    where: { id, applicationId: t.applicationId, environmentId: t.environmentId },
    data: { status: "inactive", updatedAt: ctx.clock.now() },
  });
  if (res.count === 0) throw errors.notFound("Connector");
  return ctx.db.connector.findUniqueOrThrow({ where: { id } });
}
