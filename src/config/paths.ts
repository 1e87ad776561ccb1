// Where partner-cli keeps its files: PARTNER_CLI_CONFIG_DIR, else the XDG config dir.
import { chmodSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.PARTNER_CLI_CONFIG_DIR) return env.PARTNER_CLI_CONFIG_DIR;
  const xdg = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(xdg, "partner-cli");
}

/** Creates a private directory (0700 whatever the umask) and returns its path. */
export function ensurePrivateDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  return dir;
}
