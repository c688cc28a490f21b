// Process entry: config, database (migrated), first-run bootstrap, API + GraphQL + pages in one process.
import { startAgenda } from "../jobs/agenda";
import { buildApp } from "./app";
import { ConfigError, loadConfig } from "./config";
import { bootstrapDemo, isEmpty } from "./platform/bootstrap.service";
import { sessionJwks } from "./extensions/session-keys";
import { currentSigningKey } from "./platform/signing-keys";
import { exitWith } from "./cli/common";
import { openRuntime } from "./runtime";
import { secretKey } from "./shared/secrets";
import { isUniqueViolation, makeCtx } from "./shared/context";
import { DeliveryWorker } from "./webhooks/delivery.worker";
import { MailDispatcher } from "./mail/mail-sender";
import { scheduleDeployProbe } from "./extensions/install-health.service";

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(1);
    }
    throw e;
  }
  try {
    secretKey(config); // fail now, not at the first webhook, when production has no SECRET_KEY
  } catch (e) {
    console.error((e as Error).message);
    process.exit(1);
  }
  const { db, deps } = await openRuntime(config, { principalCache: true });
  // Jobs run in this process unless split off (`npm start -- --no-jobs` plus `npm run jobs` elsewhere).
  const withJobs = !process.argv.includes("--no-jobs");
  const deliveries = new DeliveryWorker(deps);
  const agenda = withJobs ? (deliveries.start(), await startAgenda(db, { deps, deliveries })) : null;
  // emails leave within moments of the commit that queued them (the mail-dispatch job is the safety net)
  const mail = withJobs ? new MailDispatcher(deps).start() : null;
  // RS256 keys for install and extension session tokens: generated on first start (sealed with SECRET_KEY)
  await currentSigningKey(deps, "extensions");
  const cancelDeployProbe = withJobs ? scheduleDeployProbe(deps) : () => {};
  const app = buildApp(deps, db);
  await new Promise<void>((resolve) => app.server.listen(config.PORT, config.HOST, resolve));
  const addr = app.server.address();
  const port = typeof addr === "object" && addr ? addr.port : config.PORT;
  // Unset BASE_URL / CHECKOUT_URL name the port really listened on (PORT=0 picks one), in links and in the credentials.
  if (config.urlsFollowPort.base) config.BASE_URL = `http://localhost:${port}`;
  if (config.urlsFollowPort.checkout) config.CHECKOUT_URL = config.BASE_URL;
  if (config.urlsFollowPort.dashboard) config.DASHBOARD_URL = config.BASE_URL;
  const ctx = makeCtx(deps);
  if (await isEmpty(ctx)) {
    try {
      const creds = await bootstrapDemo(ctx, config);
      console.log("First start: created the demo workspace. These credentials are shown once:");
      console.log(JSON.stringify(creds));
    } catch (e) {
      if (!isUniqueViolation(e)) throw e; // another process bootstrapped at the same moment
    }
  }
  // the RS256 signing keys exist from the first start (made once, sealed with SECRET_KEY; every process shares them)
  await sessionJwks(ctx);
  await currentSigningKey(deps, "oauth");
  console.log(`[${db.kind}] listening on http://localhost:${port} (REST /api/v1, GraphQL /graphql, OAuth /oauth, tools /mcp)`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: shutting down`);
    const timer = setTimeout(() => process.exit(1), 10_000);
    await app.close().catch(() => {});
    cancelDeployProbe();
    await agenda?.stop();
    await deliveries.stop();
    await mail?.stop();
    await deps.hub.close();
    await deps.limits.close();
    await deps.principals?.close();
    await db.close().catch(() => {});
    clearTimeout(timer);
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

main().catch(exitWith);
