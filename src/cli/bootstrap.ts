// npm run bootstrap [-- --json]: creates the demo workspace if missing and mints fresh credentials.
// npm run bootstrap -- --user <email> [--workspace <slug>] [--json]: a dashboard session for that user only (an
// invitee who is no member yet gets one that can accept an invitation).
import { bootstrapDemo, mintUserSession } from "../platform/bootstrap.service";
import { openRuntime } from "../runtime";
import { makeCtx } from "../shared/context";
import { cliConfig, exitWith } from "./common";

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  if (i < 0) return undefined;
  const v = process.argv[i + 1];
  if (!v || v.startsWith("--")) throw new Error(`${name} needs a value`);
  return v;
}

(async () => {
  const config = cliConfig();
  const json = process.argv.includes("--json");
  const user = argValue("--user");
  const workspace = argValue("--workspace");
  if (user !== undefined && !/^[^\s@]+@[^\s@]+$/.test(user)) throw new Error("--user needs an email address");
  const { db, deps } = await openRuntime(config);
  if (user !== undefined) {
    const s = await mintUserSession(makeCtx(deps), user, workspace);
    if (json) console.log(JSON.stringify(s));
    else {
      console.log(`User        ${s.email} (${s.userId})`);
      console.log(s.memberId ? `Workspace   ${s.workspaceId} (member ${s.memberId})` : "Workspace   none yet: this session can accept an invitation (POST /api/v1/invites/accept)");
      console.log(`Dashboard   Authorization: Bearer ${s.dashboardToken}`);
    }
  } else {
    const result = await bootstrapDemo(makeCtx(deps), config);
    if (json) console.log(JSON.stringify(result));
    else {
      console.log(`Workspace   ${result.workspaceId}`);
      console.log(`Application ${result.applicationId}`);
      console.log(`Production  ${result.environments.production.id}`);
      console.log(`Sandbox     ${result.environments.sandbox.id}`);
      console.log(`Dashboard   Authorization: Bearer ${result.dashboardToken}`);
      console.log(`API key     X-API-Key: ${result.apiKey}`);
      console.log(`Base URL    ${result.baseUrl}`);
    }
  }
  await deps.hub.close();
  await deps.limits.close();
  await db.close();
})().catch(exitWith);
