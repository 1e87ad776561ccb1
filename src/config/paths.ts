// Where partner-cli keeps its files: PARTNER_CLI_CONFIG_DIR, else $XDG_CONFIG_HOME/partner-cli,
// else ~/.config/partner-cli.
import { chmodSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { MachineError } from "../errors.js";
import { machineFailure, withPath } from "../io/machine-failure.js";

export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.PARTNER_CLI_CONFIG_DIR) return resolve(env.PARTNER_CLI_CONFIG_DIR);
  // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
  const xdg =
    env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME)
      ? env.XDG_CONFIG_HOME
      : join(env.HOME || homedir(), ".config");
  return join(xdg, "partner-cli");
}

/** Creates a private directory (0700 whatever the umask; an existing one is tightened) and returns it. */
export function ensurePrivateDir(dir: string): string {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (
      code === "EACCES" ||
      code === "EPERM" ||
      code === "EROFS" ||
      code === "ENOTDIR" ||
      code === "EEXIST"
    ) {
      throw new MachineError(
        `Cannot use ${dir} as the partner-cli config directory (${code}): it must be a directory you own, made private (0700). Nothing was changed.`,
        "Set PARTNER_CLI_CONFIG_DIR to a directory of your own (cron and CI jobs have their own environment).",
        { code: code ?? "EACCES", path: dir, syscall: (err as NodeJS.ErrnoException).syscall },
      );
    }
    throw machineFailure(withPath(err, dir)) ?? err;
  }
  return dir;
}
