// npm run keys:rotate [-- --purpose extensions] [-- --retired-ttl-seconds 86400]: a new RS256 signing key for the
// purpose (default extensions: install tokens and extension session tokens). The previous key stays in the JWKS
// until its tokens have expired, so nothing signed before the rotation stops verifying.
import { rotateSigningKey } from "../platform/signing-keys";
import { openRuntime } from "../runtime";
import { secretKey } from "../shared/secrets";
import { cliConfig, exitWith } from "./common";

function arg(name: string) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

(async () => {
  const config = cliConfig();
  secretKey(config);
  const purpose = arg("purpose") ?? "extensions";
  const ttl = arg("retired-ttl-seconds");
  const { db, deps } = await openRuntime(config);
  const r = await rotateSigningKey(deps, purpose, ttl !== undefined ? { retiredTtlSeconds: Number(ttl) } : {});
  console.log(JSON.stringify({ purpose, kid: r.kid, retired: r.retired }));
  await deps.hub.close();
  await deps.limits.close();
  await db.close();
})().catch(exitWith);
