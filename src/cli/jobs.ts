// npm run jobs                 -> a worker process: delivery worker + Agenda schedules, no HTTP
// npm run jobs -- run <job>    -> one pass of one job, then exit
// npm run jobs -- list         -> the registered jobs
import { startAgenda } from "../../jobs/agenda";
import { findJob, JOBS } from "../../jobs/registry";
import { openRuntime } from "../runtime";
import { DeliveryWorker } from "../webhooks/delivery.worker";
import { MailDispatcher } from "../mail/mail-sender";
import { cliConfig, exitWith } from "./common";

(async () => {
  const [cmd, name] = process.argv.slice(2);
  if (cmd === "list") {
    for (const j of JOBS) console.log(`${j.name}\tevery ${j.every}`);
    return;
  }
  if (cmd === "run" && !findJob(name ?? "")) {
    console.error(`unknown job "${name ?? ""}"; jobs: ${JOBS.map((j) => j.name).join(", ")}`);
    process.exit(2);
  }
  if (cmd !== undefined && cmd !== "run") {
    console.error("usage: npm run jobs [-- run <job> | -- list]");
    process.exit(2);
  }
  const config = cliConfig();
  const { db, deps } = await openRuntime(config);
  const deliveries = new DeliveryWorker(deps);
  if (cmd === "run") {
    console.log(`${name}: ${await findJob(name!)!.run({ deps, deliveries })}`);
    await deps.hub.close();
    await deps.limits.close();
    await db.close();
    return;
  }
  deliveries.start();
  const mail = new MailDispatcher(deps).start();
  const agenda = await startAgenda(db, { deps, deliveries });
  console.log(`[${db.kind}] job worker running: ${JOBS.map((j) => j.name).join(", ")}`);
  const stop = async () => {
    await agenda.stop();
    await deliveries.stop();
    await mail.stop();
    await deps.hub.close();
    await deps.limits.close();
    await db.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());
})().catch(exitWith);
