// npm run bootstrap [-- --json]: creates the demo workspace if missing and mints fresh credentials.
import { bootstrapDemo } from "../platform/bootstrap.service";
import { openRuntime } from "../runtime";
import { makeCtx } from "../shared/context";
import { cliConfig, exitWith } from "./common";

(async () => {
  const config = cliConfig();
  const json = process.argv.includes("--json");
  const { db, deps } = await openRuntime(config);
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
  await deps.hub.close();
  await deps.limits.close();
  await db.close();
})().catch(exitWith);
