import { ConfigError, loadConfig } from "../config";
import { DataFolderInUseError } from "../db/client";

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

/** A command's last word on a failure: a known condition prints its message alone (it says what to do). */
export function exitWith(e: unknown): never {
  if (e instanceof DataFolderInUseError || e instanceof ConfigError) console.error(e.message);
  else console.error(e);
  process.exit(1);
}
