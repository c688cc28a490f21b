// Batched reads for the graph's installation edges (ExtensionInstallation.extension and .version): one statement for
// every install on a page. The same visibility as the single reads (getExtension, getVersion): extensions:read, and a
// draft extension or a draft version only for its publisher's workspace; an installed extension is published (or
// delisted since), so a merchant always sees what it installed, and a forged id of another workspace's draft is null.
import type { Ctx } from "../shared/context";
import { extensionView, versionView } from "./extensions.common";
import { requireReader } from "./extensions.service";

export async function extensionsByIds(ctx: Ctx, ids: readonly string[]): Promise<Map<string, ReturnType<typeof extensionView>>> {
  const p = requireReader(ctx);
  if (ids.length === 0) return new Map();
  const rows = await ctx.db.extension.findMany({ where: { id: { in: [...ids] }, OR: [{ workspaceId: p.workspace.id }, { lifecycle: { not: "draft" } }] } });
  return new Map(rows.map((r) => [r.id, extensionView(r)]));
}

export async function versionsByIds(ctx: Ctx, ids: readonly string[]): Promise<Map<string, ReturnType<typeof versionView>>> {
  const p = requireReader(ctx);
  if (ids.length === 0) return new Map();
  const rows = await ctx.db.extensionVersion.findMany({
    where: { id: { in: [...ids] }, OR: [{ status: "published", extension: { lifecycle: { not: "draft" } } }, { extension: { workspaceId: p.workspace.id } }] },
  });
  return new Map(rows.map((r) => [r.id, versionView(r)]));
}
