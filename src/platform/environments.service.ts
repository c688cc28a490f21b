// The workspace catalog of environments: system production + sandbox, and custom non-production ones.
import { z } from "zod";
import { invalidatePrincipals } from "../shared/principal-cache";
import type { Environment } from "../generated/prisma/client";
import { type Ctx, isUniqueViolation, withTx } from "../shared/context";
import { DomainError, parseInput } from "../shared/errors";
import { requireDashboard, requirePermission } from "../shared/guards";
import { isUuid } from "../shared/ids";

export const createEnvironmentInput = z.strictObject({
  slug: z
    .string()
    .min(2)
    .max(40)
    .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "must be lowercase kebab-case (a-z, 0-9, single hyphens)"),
  name: z.string().trim().min(1).max(100),
});

export const listEnvironmentsQuery = z.strictObject({
  includeArchived: z.enum(["true", "false"]).default("false").transform((v) => v === "true"),
});

/** "production", "live", "production-1", "live-2" are reserved; "productionish" and "livemode" are not. */
export function isReservedSlug(slug: string) {
  const first = slug.split("-")[0];
  return first === "production" || first === "live";
}

export function environmentView(e: Environment) {
  return {
    id: e.id,
    workspaceId: e.workspaceId,
    slug: e.slug,
    name: e.name,
    kind: e.kind,
    providerEnvironment: e.providerEnvironment,
    status: e.status,
    isSystem: e.isSystem,
    createdAt: e.createdAt.toISOString(),
    archivedAt: e.archivedAt?.toISOString() ?? null,
  };
}

const envNotFound = () => new DomainError("environment_not_found", "Environment not found");

export async function listEnvironments(ctx: Ctx, workspaceId: string, query: unknown) {
  requireDashboard(ctx, workspaceId);
  const { includeArchived } = parseInput(listEnvironmentsQuery, query ?? {}, ["query"]);
  return ctx.db.environment.findMany({
    where: { workspaceId, ...(includeArchived ? {} : { status: "active" }) },
    orderBy: [{ isSystem: "desc" }, { createdAt: "asc" }, { id: "asc" }],
  });
}

export async function createEnvironment(ctx: Ctx, workspaceId: string, body: unknown) {
  requireDashboard(ctx, workspaceId);
  const input = parseInput(createEnvironmentInput, body);
  requirePermission(ctx, "workspace:environments:write");
  if (isReservedSlug(input.slug)) {
    throw new DomainError("reserved_environment_slug", `Slug "${input.slug}" is reserved: it starts with a production or live component`, { slug: input.slug });
  }
  try {
    return await withTx(ctx, async (tx) => {
      const taken = await tx.db.environment.findUnique({ where: { workspaceId_slug: { workspaceId, slug: input.slug } } });
      if (taken) throw slugTaken(input.slug);
      return tx.db.environment.create({
        data: { workspaceId, slug: input.slug, name: input.name, kind: "non_production", providerEnvironment: "sandbox", isSystem: false },
      });
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw slugTaken(input.slug);
    throw e;
  }
}

function slugTaken(slug: string) {
  return new DomainError("environment_slug_taken", `An environment with slug "${slug}" already exists in this workspace`, { slug });
}

export async function archiveEnvironment(ctx: Ctx, workspaceId: string, environmentId: string) {
  requireDashboard(ctx, workspaceId);
  requirePermission(ctx, "workspace:environments:write");
  if (!isUuid(environmentId)) throw envNotFound();
  return withTx(ctx, async (tx) => {
    const env = await tx.db.environment.findFirst({ where: { id: environmentId, workspaceId } });
    if (!env) throw envNotFound();
    if (env.isSystem || env.kind === "production") {
      throw new DomainError("system_environment_locked", `The system environment "${env.slug}" cannot be archived`);
    }
    if (env.status === "archived") return env;
    await invalidatePrincipals(tx, "all"); // its keys stop working in every process when this commits
    return tx.db.environment.update({ where: { id: env.id }, data: { status: "archived", archivedAt: tx.clock.now() } });
  });
}

