// The config store: profiles, saved cursors and pending jobs, in one JSON file (0600 in a 0700 dir).
// Every change is a read-modify-write under a cross-process lock, with the file re-read inside it.
// The file is what the `conf` package wrote before (tab-indented JSON, written atomically): reading it
// is one readFileSync + JSON.parse, so no schema validator (conf pulls in ajv) loads on any path.
import { chmodSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CliError, MachineError } from "../errors.js";
import { machineFailure, withPath } from "../io/machine-failure.js";
import { replaceFile } from "../io/private-file.js";
import { ensurePrivateDir } from "./paths.js";

export interface StoredOrganization {
  id: string;
  name: string;
  reportingTimeZone: string;
}

export interface Profile {
  baseUrl: string;
  /** The key, when it is kept in this file (absent when `keyStorage` is "keychain"). */
  apiKey?: string | undefined;
  /** "keychain": the key is in the OS keychain (src/config/keychain.ts); absent: in this file. */
  keyStorage?: "keychain" | undefined;
  /** The masked key ("****" + last 4), kept for display when the key itself is in the keychain. */
  keyMask?: string | undefined;
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

/** Mode of the config file, whatever the umask. */
const FILE_MODE = 0o600;

export class ConfigStore {
  readonly dir: string;
  readonly file: string;
  private opened = false;

  constructor(dir: string) {
    this.dir = dir;
    this.file = join(dir, "config.json");
  }

  /** First use: the directory made private, and a file that is more open than 0600 tightened. */
  private open(): void {
    if (this.opened) return;
    ensurePrivateDir(this.dir);
    // A file written by something else (or an older version) may be more open than it should be.
    if (existsSync(this.file)) {
      try {
        chmodSync(this.file, FILE_MODE);
      } catch (err) {
        const e = err as NodeJS.ErrnoException;
        throw new MachineError(
          `Cannot make ${this.file} private (0600): ${e.code}. Nothing was changed.`,
          "The config file must belong to you; fix its owner, or set PARTNER_CLI_CONFIG_DIR to a directory of your own.",
          { code: e.code ?? "EPERM", path: this.file, syscall: e.syscall },
        );
      }
    }
    this.opened = true;
  }

  /** The file's contents as stored (an absent file is an empty store; nothing is written). */
  private load(): Partial<ConfigData> | undefined {
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
    try {
      return JSON.parse(text) as Partial<ConfigData>;
    } catch (err) {
      throw new CliError(
        `The config file ${this.file} is not valid JSON (${(err as Error).message}).`,
        'Fix it by hand, or move it away and run "partner-cli login" again.',
      );
    }
  }

  /**
   * Writes the whole store: a private temporary file, flushed, renamed over the old one. The file
   * calls run on libuv's threads, so the event loop stays free meanwhile (an export's next page is
   * requested and read while its cursor is being saved).
   */
  private async save(data: ConfigData): Promise<void> {
    try {
      await replaceFile(this.file, JSON.stringify(data, undefined, "\t"));
    } catch (err) {
      // The old file is untouched: every saved cursor is still the one saved before.
      throw (
        machineFailure(withPath(err, this.file), {
          kept: `${this.file} was not changed: every profile and saved cursor in it is as it was before this write.`,
        }) ?? err
      );
    }
  }

  /** A fresh read of the whole store. */
  async read(): Promise<ConfigData> {
    this.open();
    return normalize(this.load());
  }

  /** Locked read-modify-write: `fn` gets a fresh copy (read inside the lock) and changes it in place. */
  async update<T>(fn: (data: ConfigData) => T | Promise<T>): Promise<T> {
    this.open();
    // The lock's code loads for writes only: reading a profile (every command) does not need it.
    const { withLock } = await import("./lock.js");
    return withLock(this.file, async () => {
      const data = normalize(this.load());
      const result = await fn(data);
      await this.save(stripUndefined(data));
      return result;
    });
  }
}

function normalize(d: Partial<ConfigData> | undefined): ConfigData {
  const src = d && typeof d === "object" && !Array.isArray(d) ? d : undefined;
  const out: ConfigData = {
    profiles: { ...(src?.profiles ?? {}) },
    cursors: { ...(src?.cursors ?? {}) },
    jobs: { ...(src?.jobs ?? {}) },
  };
  if (typeof src?.currentProfile === "string") out.currentProfile = src.currentProfile;
  return out;
}

function stripUndefined(d: ConfigData): ConfigData {
  const out = { ...d };
  if (out.currentProfile === undefined) delete out.currentProfile;
  return out;
}
