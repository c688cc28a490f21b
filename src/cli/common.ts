import { ConfigError, loadConfig } from "../config";

/** Loads settings for a CLI; a bad value exits with the message naming the variable. */
export function cliConfig() {
  try {
    return loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(1);
    }
    throw e;
  }
}
