// The config store: profiles, saved cursors and pending jobs, in one conf file (0600 in a 0700 dir).
// Every change is a read-modify-write under a cross-process lock (conf alone can lose writes).
import { chmodSync, existsSync } from "node:fs";
import { join } from "node:path";
import type Conf from "conf";
import { CliError } from "../errors.js";
import { withLock } from "./lock.js";
import { ensurePrivateDir } from "./paths.js";

export interface StoredOrganization {
  id: string;
  name: string;
  reportingTimeZone: string;
}

export interface Profile {
  baseUrl: string;
  apiKey: string;
  keyName?: string | undefined;
  canWrite?: boolean | undefined;
  organization?: StoredOrganization | undefined;
  savedAt: string;
}

export interface SavedCursor {
  cursor: string | null;
  updatedAt: string;
  /** Free-form counters for `cursors show`. */
  rows?: number | undefined;
}

export interface PendingJob {
  campaignId: string;
  jobId: string;
  savedAt: string;
}

export interface ConfigData {
  currentProfile?: string | undefined;
  profiles: Record<string, Profile>;
  cursors: Record<string, SavedCursor>;
  jobs: Record<string, PendingJob>;
}

/** Mode of the config file and of its directory, whatever the umask. */
export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

export class ConfigStore {
  readonly dir: string;
  readonly file: string;
  private conf: Conf<ConfigData> | undefined;

  constructor(dir: string) {
    this.dir = dir;
    this.file = join(dir, "config.json");
  }

  private async open(): Promise<Conf<ConfigData>> {
    if (!this.conf) {
      ensurePrivateDir(this.dir);
      // A file written by something else (or an older version) may be more open than it should be.
      if (existsSync(this.file)) {
        try {
          chmodSync(this.file, FILE_MODE);
        } catch (err) {
          throw new CliError(
            `Cannot make ${this.file} private (0600): ${(err as NodeJS.ErrnoException).code}.`,
            "The config file must belong to you; fix its owner, or set PARTNER_CLI_CONFIG_DIR to a directory of your own.",
          );
        }
      }
      const { default: ConfCtor } = await import("conf");
      this.conf = this.guard(
        () =>
          new ConfCtor<ConfigData>({
            cwd: this.dir,
            configName: "config",
            projectName: "partner-cli",
            configFileMode: FILE_MODE,
            // No `defaults`: with them conf writes the file while it opens, outside our lock, and
            // can overwrite another process's locked write. normalize() fills the gaps instead.
            clearInvalidConfig: false,
          }),
      );
    }
    return this.conf;
  }

  /** Turns an unreadable file into an error that names it and says what to do. */
  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (err instanceof SyntaxError) {
        throw new CliError(
          `The config file ${this.file} is not valid JSON (${err.message}).`,
          'Fix it by hand, or move it away and run "partner-cli login" again.',
        );
      }
      throw err;
    }
  }

  /** A fresh read of the whole store. */
  async read(): Promise<ConfigData> {
    const conf = await this.open();
    return this.guard(() => normalize(conf.store));
  }

  /** Locked read-modify-write: `fn` gets a fresh copy (read inside the lock) and changes it in place. */
  async update<T>(fn: (data: ConfigData) => T | Promise<T>): Promise<T> {
    const conf = await this.open();
    return withLock(this.file, async () => {
      const data = this.guard(() => normalize(conf.store));
      const result = await fn(data);
      conf.store = stripUndefined(data);
      return result;
    });
  }
}

function normalize(d: Partial<ConfigData> | undefined): ConfigData {
  const out: ConfigData = {
    profiles: { ...(d?.profiles ?? {}) },
    cursors: { ...(d?.cursors ?? {}) },
    jobs: { ...(d?.jobs ?? {}) },
  };
  if (typeof d?.currentProfile === "string") out.currentProfile = d.currentProfile;
  return out;
}

function stripUndefined(d: ConfigData): ConfigData {
  const out = { ...d };
  if (out.currentProfile === undefined) delete out.currentProfile;
  return out;
}
