// Where partner-cli keeps its files (docs/configuration.md, "Where files live"). Pure functions of
// the platform and the environment (and, for the old locations, of what exists), so that the rule of
// every platform is tested on any of them.
//
// - The config dir (profiles, keys kept in the file, saved cursors): PARTNER_CLI_CONFIG_DIR, else
//   %APPDATA%\partner-cli on Windows, else $XDG_CONFIG_HOME/partner-cli or ~/.config/partner-cli
//   (Linux and macOS alike: a command-line tool's dotfiles, as gh and git keep them; macOS's
//   ~/Library/Preferences holds property lists managed by cfprefsd, not files a user edits, and
//   earlier versions already used ~/.config there).
// - The state dir (the embedded sandbox's data): PARTNER_CLI_STATE_DIR, else `state` inside
//   PARTNER_CLI_CONFIG_DIR when that is set (one variable isolates a test run), else
//   %LOCALAPPDATA%\partner-cli on Windows, else $XDG_STATE_HOME/partner-cli or
//   ~/.local/state/partner-cli.
// - Old locations are still read: a Windows config dir of an earlier version (~/.config/partner-cli)
//   while %APPDATA%\partner-cli does not exist, and a sandbox data dir in the config dir
//   (<config>/sandbox) while the state dir has none. They are used where they are, never moved, so
//   an older partner-cli running at the same time finds (and locks) the same files.
import { chmodSync, existsSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { posix, win32 } from "node:path";
import { MachineError } from "../errors.js";
import { machineFailure, withPath } from "../io/machine-failure.js";

type Exists = (path: string) => boolean;

const pathsOf = (platform: NodeJS.Platform) => (platform === "win32" ? win32 : posix);

/** The home directory: %USERPROFILE% on Windows, $HOME elsewhere, else the OS's answer. */
function home(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  return (platform === "win32" ? env.USERPROFILE : env.HOME) || homedir();
}

/** An XDG base directory: the variable when absolute (the spec says a relative one is ignored), else the default under home. */
function xdgDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform, name: string, fallback: string[]): string {
  const p = pathsOf(platform);
  const value = env[name];
  return value && p.isAbsolute(value) ? value : p.join(home(env, platform), ...fallback);
}

/** XDG's config dir: this version's on Linux and macOS, and every earlier version's on every platform. */
function xdgConfigDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  return pathsOf(platform).join(xdgDir(env, platform, "XDG_CONFIG_HOME", [".config"]), "partner-cli");
}

export function configDir(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
  exists: Exists = existsSync,
): string {
  const p = pathsOf(platform);
  if (env.PARTNER_CLI_CONFIG_DIR) return p.resolve(env.PARTNER_CLI_CONFIG_DIR);
  if (platform !== "win32") return xdgConfigDir(env, platform);
  const dir = p.join(env.APPDATA || p.join(home(env, platform), "AppData", "Roaming"), "partner-cli");
  const old = xdgConfigDir(env, platform);
  return !exists(dir) && exists(old) ? old : dir;
}

export function stateDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  const p = pathsOf(platform);
  if (env.PARTNER_CLI_STATE_DIR) return p.resolve(env.PARTNER_CLI_STATE_DIR);
  if (env.PARTNER_CLI_CONFIG_DIR) return p.join(p.resolve(env.PARTNER_CLI_CONFIG_DIR), "state");
  if (platform === "win32")
    return p.join(env.LOCALAPPDATA || p.join(home(env, platform), "AppData", "Local"), "partner-cli");
  return p.join(xdgDir(env, platform, "XDG_STATE_HOME", [".local", "state"]), "partner-cli");
}

/**
 * The embedded sandbox's data dir: `sandbox` in the state dir, or the one an earlier version made
 * in the config dir while the state dir has none (its data is kept, never an empty sandbox instead).
 */
export function sandboxDataDir(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
  exists: Exists = existsSync,
): string {
  const p = pathsOf(platform);
  const dir = p.join(stateDir(env, platform), "sandbox");
  const old = p.join(configDir(env, platform, exists), "sandbox");
  return !exists(dir) && exists(old) ? old : dir;
}

/** Creates a private directory (0700 whatever the umask; an existing one is tightened) and returns it. */
export function ensurePrivateDir(dir: string, what = "config"): string {
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
        `Cannot use ${dir} as the partner-cli ${what} directory (${code}): it must be a directory you own, made private (0700). Nothing was changed.`,
        `Set ${what === "state" ? "PARTNER_CLI_STATE_DIR" : "PARTNER_CLI_CONFIG_DIR"} to a directory of your own (cron and CI jobs have their own environment).`,
        { code: code ?? "EACCES", path: dir, syscall: (err as NodeJS.ErrnoException).syscall },
      );
    }
    throw machineFailure(withPath(err, dir)) ?? err;
  }
  return dir;
}
