// The config store: profiles, saved cursors and pending jobs, in one conf file (0600 in a 0700 dir).
// Every change is a read-modify-write under a cross-process lock (conf alone can lose writes).
import { join } from "node:path";
import type Conf from "conf";
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

const EMPTY: ConfigData = { profiles: {}, cursors: {}, jobs: {} };

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
      const { default: ConfCtor } = await import("conf");
      this.conf = new ConfCtor<ConfigData>({
        cwd: this.dir,
        configName: "config",
        projectName: "partner-cli",
        configFileMode: 0o600,
        defaults: EMPTY,
        clearInvalidConfig: false,
      });
    }
    return this.conf;
  }

  /** A fresh read of the whole store. */
  async read(): Promise<ConfigData> {
    const conf = await this.open();
    return normalize(conf.store);
  }

  /** Locked read-modify-write: `fn` gets a fresh copy and returns what to store. */
  async update<T>(fn: (data: ConfigData) => T | Promise<T>): Promise<T> {
    const conf = await this.open();
    return withLock(this.file, async () => {
      const data = normalize(conf.store);
      const result = await fn(data);
      conf.store = data;
      return result;
    });
  }
}

function normalize(d: Partial<ConfigData> | undefined): ConfigData {
  return {
    currentProfile: d?.currentProfile,
    profiles: { ...(d?.profiles ?? {}) },
    cursors: { ...(d?.cursors ?? {}) },
    jobs: { ...(d?.jobs ?? {}) },
  };
}
