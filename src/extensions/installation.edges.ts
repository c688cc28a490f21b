// The graph's installation edges (issue 37): ExtensionInstallation.extension and .version (the pinned version; its
// label, formerly `version`, is `versionLabel`). Nullable, extensions:read (the scope of extension reads), batched
// per request: a page of installs costs one statement per edge.
import { builder } from "../graphql/builder";
import { loader } from "../graphql/loaders";
import { ExtensionRef, InstallationRef, VersionRef } from "./extension-types.schema";
import { extensionsByIds, versionsByIds } from "./extension-edges.service";

builder.objectFields(InstallationRef, (t) => ({
  extension: t.field({
    type: ExtensionRef,
    nullable: true,
    description: "The installed extension (needs extensions:read; without it this field alone errors)",
    authScopes: { scope: "extensions:read" },
    resolve: (i, _a, ctx) => loader(ctx, "extensionById", (ids: string[]) => extensionsByIds(ctx, ids)).load(i.extensionId),
  }),
  version: t.field({
    type: VersionRef,
    nullable: true,
    description: "The pinned version, null for a legacy install (needs extensions:read; without it this field alone errors)",
    authScopes: { scope: "extensions:read" },
    resolve: (i, _a, ctx) => (i.versionId ? loader(ctx, "extensionVersionById", (ids: string[]) => versionsByIds(ctx, ids)).load(i.versionId) : null),
  }),
}));
