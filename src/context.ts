// Context: everything a command needs from the outside world, behind lazy getters, so tests can
// pass fakes (streams, env, clock, prompter) and talk to a sandbox on port 0.
import { join } from "node:path";
import { ApiClient, boundsFromEnv } from "./api/client.js";
import type { RetrySettings } from "./api/retry-policy.js";
import { type ConfigStore, normalizeBaseUrl, configDir as resolveConfigDir } from "./config/index.js";
import { checkApiKey } from "./config/profiles.js";
import type { Profile } from "./config/store.js";
import { UsageError } from "./errors.js";
import { createIo, type Io, type IoStreams } from "./io/io.js";
import { inquirerPrompter, type Prompter } from "./io/prompter.js";

export interface GlobalOptions {
  profile?: string | undefined;
  baseUrl?: string | undefined;
  json: boolean;
  color: boolean;
  input: boolean;
  yes: boolean;
  verbose: boolean;
}

export interface Clock {
  now(): Date;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => new Date(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      signal?.addEventListener("abort", () => {
        clearTimeout(t);
        resolve();
      });
    }),
};

/** Which service and key a command talks to, and why. */
export interface Target {
  baseUrl: string;
  apiKey: string;
  /** The stored profile in use, when one is. */
  profileName: string | null;
  profile: Profile | null;
  source: "env" | "profile" | "embedded";
  /** Where the base URL came from, for messages: "--base-url", "PARTNER_BASE_URL", 'profile "prod"', "the embedded sandbox". */
  baseUrlSource: string;
}

export interface ContextInit {
  streams: IoStreams;
  env: NodeJS.ProcessEnv;
  globals: GlobalOptions;
  clock?: Clock | undefined;
  prompter?: Prompter | undefined;
  retry?: Partial<RetrySettings> | undefined;
  signal?: AbortSignal | undefined;
}

export class Context {
  readonly io: Io;
  readonly env: NodeJS.ProcessEnv;
  readonly globals: GlobalOptions;
  readonly clock: Clock;
  readonly signal: AbortSignal;
  private readonly init: ContextInit;
  private configStore: ConfigStore | undefined;
  private targetPromise: Promise<Target> | undefined;
  private apiClient: ApiClient | undefined;
  private prompterInstance: Prompter | undefined;
  private readonly closers: (() => Promise<void> | void)[] = [];

  constructor(init: ContextInit) {
    this.init = init;
    this.env = init.env;
    this.globals = init.globals;
    this.clock = init.clock ?? systemClock;
    this.signal = init.signal ?? new AbortController().signal;
    this.io = createIo(init.streams, {
      json: init.globals.json,
      noColor: !init.globals.color,
      env: init.env,
    });
    this.prompterInstance = init.prompter;
  }

  get verbose(): boolean {
    return this.globals.verbose || this.env.PARTNER_DEBUG === "1";
  }

  configDir(): string {
    return resolveConfigDir(this.env);
  }

  async config(): Promise<ConfigStore> {
    if (!this.configStore) {
      const { ConfigStore } = await import("./config/store.js");
      this.configStore = new ConfigStore(this.configDir());
    }
    return this.configStore;
  }

  /** The profile name asked for: --profile > PARTNER_PROFILE > the stored current one. */
  async profileName(): Promise<string | undefined> {
    if (this.globals.profile) return this.globals.profile;
    if (this.env.PARTNER_PROFILE) return this.env.PARTNER_PROFILE;
    return (await (await this.config()).read()).currentProfile;
  }

  /** Resolves base URL and key: flag > environment > stored profile > embedded sandbox. */
  target(): Promise<Target> {
    this.targetPromise ??= this.resolveTarget();
    return this.targetPromise;
  }

  private async resolveTarget(): Promise<Target> {
    const rawKey = this.env.PARTNER_API_KEY;
    const envKey = rawKey ? checkApiKey(rawKey, "PARTNER_API_KEY") : undefined;
    const explicitProfile = this.globals.profile || this.env.PARTNER_PROFILE || undefined;
    const data = await (await this.config()).read();
    const name = explicitProfile ?? data.currentProfile;
    const profile = name ? data.profiles[name] : undefined;
    if (explicitProfile && !profile && !envKey) {
      throw new UsageError(
        `No profile named "${explicitProfile}".`,
        `Run "partner-cli login --profile ${explicitProfile}" or "partner-cli profiles list".`,
      );
    }
    const baseUrl = this.globals.baseUrl
      ? normalizeBaseUrl(this.globals.baseUrl, "--base-url")
      : this.env.PARTNER_BASE_URL
        ? normalizeBaseUrl(this.env.PARTNER_BASE_URL, "PARTNER_BASE_URL")
        : profile?.baseUrl;
    const baseUrlSource = this.globals.baseUrl
      ? "--base-url"
      : this.env.PARTNER_BASE_URL
        ? "PARTNER_BASE_URL"
        : `profile "${name}"`;
    if (envKey) {
      if (!baseUrl) {
        throw new UsageError(
          "PARTNER_API_KEY is set but no base URL is known.",
          "Set PARTNER_BASE_URL or pass --base-url (the part before /api/partner/v1).",
        );
      }
      return {
        baseUrl,
        apiKey: envKey,
        profileName: profile ? name! : null,
        profile: profile ?? null,
        source: "env",
        baseUrlSource,
      };
    }
    if (profile) {
      return {
        baseUrl: baseUrl!,
        apiKey: profile.apiKey,
        profileName: name!,
        profile,
        source: "profile",
        baseUrlSource,
      };
    }
    if (this.globals.baseUrl || this.env.PARTNER_BASE_URL) {
      throw new UsageError(
        "A base URL was given but no API key.",
        'Run "partner-cli login" or set PARTNER_API_KEY.',
      );
    }
    return this.startEmbedded();
  }

  private async startEmbedded(): Promise<Target> {
    const dataDir = join(this.configDir(), "sandbox");
    const { startEmbeddedSandbox } = await import("./sandbox/embedded.js");
    const sb = await startEmbeddedSandbox(dataDir);
    this.onClose(() => sb.close());
    this.io.err(
      `Using the embedded sandbox (no profile or PARTNER_API_KEY); its data is in ${dataDir}. Run "partner-cli login" to use your organization.`,
    );
    return {
      baseUrl: sb.url,
      apiKey: sb.writeKey,
      profileName: null,
      profile: null,
      source: "embedded",
      baseUrlSource: "the embedded sandbox",
    };
  }

  async api(): Promise<ApiClient> {
    if (!this.apiClient) {
      const t = await this.target();
      this.apiClient = new ApiClient({
        baseUrl: t.baseUrl,
        apiKey: t.apiKey,
        baseUrlSource: t.baseUrlSource,
        retry: this.init.retry ?? retryFromEnv(this.env),
        ...boundsFromEnv(this.env),
        signal: this.signal,
        trace: this.verbose ? (line) => this.io.err(line) : undefined,
        onRetry: ({ reason, delayMs }) => {
          if (!this.verbose && this.io.stderrIsTTY)
            this.io.err(`(${reason}; retrying in ${Math.ceil(delayMs / 100) / 10}s)`);
        },
      });
      const client = this.apiClient;
      this.onClose(() => client.close());
    }
    return this.apiClient;
  }

  /** Prompts are allowed only on a terminal (stdin and stdout) and without --no-input. */
  canPrompt(): boolean {
    return this.globals.input && this.io.stdinIsTTY && this.io.stdoutIsTTY;
  }

  prompter(): Prompter {
    this.prompterInstance ??= inquirerPrompter(this.io);
    return this.prompterInstance;
  }

  onClose(fn: () => Promise<void> | void): void {
    this.closers.push(fn);
  }

  async close(): Promise<void> {
    while (this.closers.length) {
      const fn = this.closers.pop()!;
      try {
        await fn();
      } catch {
        // closing is best effort
      }
    }
  }
}

/** PARTNER_RETRY_DEADLINE_MS / PARTNER_RETRY_BASE_MS tune the retry policy (tests, impatient cron jobs). */
export function retryFromEnv(env: NodeJS.ProcessEnv): Partial<RetrySettings> | undefined {
  const out: Partial<RetrySettings> = {};
  if (env.PARTNER_RETRY_DEADLINE_MS) out.deadlineMs = Number(env.PARTNER_RETRY_DEADLINE_MS);
  if (env.PARTNER_RETRY_BASE_MS) out.baseDelayMs = Number(env.PARTNER_RETRY_BASE_MS);
  return Object.keys(out).length ? out : undefined;
}
