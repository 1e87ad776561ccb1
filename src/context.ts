// Context: everything a command needs from the outside world, behind lazy getters, so tests can
// pass fakes (streams, env, clock, prompter) and talk to a sandbox on port 0.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { ApiClient, boundsFromEnv, type ClientOptions } from "./api/client.js";
import { proxyFromEnv } from "./api/proxy.js";
import type { RetrySettings } from "./api/retry-policy.js";
import { type Clock, systemClock } from "./clock.js";
import { misspellingNote } from "./config/env-names.js";
import {
  type ConfigStore,
  ensurePrivateDir,
  normalizeBaseUrl,
  configDir as resolveConfigDir,
  sandboxDataDir,
  stateDir as resolveStateDir,
} from "./config/index.js";
import { checkApiKey } from "./config/profiles.js";
import type { ConfigData, Profile } from "./config/store.js";
import { ConfigError, UsageError } from "./errors.js";
import { createIo, type Io, type IoStreams } from "./io/io.js";
import { inquirerPrompter, type Prompter } from "./io/prompter.js";
import { parseBoolean } from "./spec/boolean.js";

export { type Clock, systemClock };

export interface GlobalOptions {
  profile?: string | undefined;
  baseUrl?: string | undefined;
  json: boolean;
  color: boolean;
  input: boolean;
  yes: boolean;
  verbose: boolean;
  /** --sandbox: the embedded sandbox on purpose, whatever profile or key exists. */
  sandbox?: boolean | undefined;
  /** --quiet: nothing on stderr but errors. */
  quiet?: boolean | undefined;
  /** --fields a,b.c: the keys or columns to print. */
  fields?: string | undefined;
  /** --jq EXPR: jq's language over the JSON output. */
  jq?: string | undefined;
  /** --format of a list, get or report (table|tsv|csv|json|ndjson). */
  format?: string | undefined;
  /** --wide: tables show every column. */
  wide?: boolean | undefined;
  /** --out FILE of a list or report: stdout's data goes to the file. */
  out?: string | undefined;
}

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
  private settledTarget: Target | undefined;
  private apiClient: ApiClient | undefined;
  private prompterInstance: Prompter | undefined;
  private readonly closers: (() => Promise<void> | void)[] = [];

  constructor(init: ContextInit) {
    this.init = init;
    this.env = init.env;
    // PARTNER_NO_INPUT=1 is --no-input (gh's GH_PROMPT_DISABLED): one place, so every check of
    // globals.input sees it.
    this.globals = noInputFromEnv(init.env) ? { ...init.globals, input: false } : init.globals;
    this.clock = init.clock ?? systemClock;
    this.signal = init.signal ?? new AbortController().signal;
    this.io = createIo(init.streams, {
      json: init.globals.json,
      noColor: !init.globals.color,
      env: init.env,
      quiet: init.globals.quiet,
      fields: init.globals.fields,
      jq: init.globals.jq,
      format: init.globals.format,
      wide: init.globals.wide,
      out: init.globals.out,
    });
    this.prompterInstance = init.prompter;
  }

  get verbose(): boolean {
    return this.globals.verbose || this.env.PARTNER_DEBUG === "1";
  }

  configDir(): string {
    return resolveConfigDir(this.env);
  }

  /** Where the embedded sandbox's data lives (docs/configuration.md, "Where files live"). */
  stateDir(): string {
    return resolveStateDir(this.env);
  }

  /** The embedded sandbox's data dir: in the state dir, or where an earlier version made it. */
  sandboxDataDir(): string {
    return sandboxDataDir(this.env);
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

  /**
   * Resolves base URL and key: --sandbox / PARTNER_SANDBOX > flag > environment > stored profile >
   * the embedded sandbox, which is used without being asked for only at a terminal. Without a
   * terminal and without credentials it throws ConfigError (exit 4) having touched nothing.
   */
  target(): Promise<Target> {
    this.targetPromise ??= this.resolveTarget().then((t) => {
      this.settledTarget = t;
      return t;
    });
    return this.targetPromise;
  }

  /** The target, once target() has resolved it (error hints name where the key and URL came from). */
  get resolvedTarget(): Target | undefined {
    return this.settledTarget;
  }

  /**
   * The target for commands that only read or change local state (saved cursors): resolved like
   * target(), but the embedded sandbox is neither started nor refused. For it, baseUrl and apiKey
   * are empty.
   */
  async localTarget(): Promise<Target> {
    const resolved = await this.resolveCredentials();
    return resolved.kind === "target" ? resolved.target : embeddedTarget("", "");
  }

  private async resolveTarget(): Promise<Target> {
    const resolved = await this.resolveCredentials();
    if (resolved.kind === "target") return resolved.target;
    if (resolved.kind === "chosen") return this.startEmbedded(resolved.notice);
    // Nobody asked for the sandbox: only a person at a terminal gets it (and is told so).
    if (this.io.stdinIsTTY && this.io.stderrIsTTY) {
      return this.startEmbedded((dataDir) =>
        withNote(
          `Using the embedded sandbox (no profile or PARTNER_API_KEY); its data is in ${dataDir}. Run "partner-cli login" to use your organization.`,
          misspellingNote(this.env),
        ),
      );
    }
    throw this.noCredentialsError();
  }

  /** The stored profiles, read without creating the config directory when there is no config file. */
  async storedData(): Promise<ConfigData> {
    // No config file (a key from the environment in cron or CI): the store's code is not even loaded.
    if (!this.configStore && !existsSync(join(this.configDir(), "config.json")))
      return { profiles: {}, cursors: {}, jobs: {} };
    const store = await this.config();
    if (!existsSync(store.file)) return { profiles: {}, cursors: {}, jobs: {} };
    return store.read();
  }

  /** The sandbox chosen on purpose (--sandbox, PARTNER_SANDBOX): its notice names what it leaves unused. */
  private async sandboxChosen(
    chosenBy: string,
  ): Promise<{ kind: "chosen"; notice: (dataDir: string) => string }> {
    const data = await this.storedData();
    const profileName = this.env.PARTNER_PROFILE || data.currentProfile;
    const unused = [
      this.env.PARTNER_API_KEY ? "PARTNER_API_KEY" : undefined,
      this.env.PARTNER_BASE_URL ? "PARTNER_BASE_URL" : undefined,
      profileName && data.profiles[profileName] ? `profile "${profileName}"` : undefined,
    ].filter((x): x is string => x !== undefined);
    const unusedNote = unused.length
      ? `; ${joinAnd(unused)} ${unused.length === 1 ? "is" : "are"} not used`
      : "";
    return {
      kind: "chosen",
      notice: (dataDir) =>
        `Using the embedded sandbox (chosen with ${chosenBy}${unusedNote}); its data is in ${dataDir}.`,
    };
  }

  /** Decides the target without starting anything: a real one, the sandbox chosen on purpose, or none. */
  private async resolveCredentials(): Promise<
    | { kind: "target"; target: Target }
    | { kind: "chosen"; notice: (dataDir: string) => string }
    | { kind: "none" }
  > {
    const chosenBy = sandboxChoice(this.globals, this.env);
    if (chosenBy) return await this.sandboxChosen(chosenBy);
    const rawKey = this.env.PARTNER_API_KEY;
    const envKey = rawKey ? checkApiKey(rawKey, "PARTNER_API_KEY") : undefined;
    const explicitProfile = this.globals.profile || this.env.PARTNER_PROFILE || undefined;
    const data = await this.storedData();
    const name = explicitProfile ?? data.currentProfile;
    const profile = name ? data.profiles[name] : undefined;
    if (explicitProfile && !profile && !envKey) {
      throw new UsageError(
        `No profile named "${explicitProfile}".`,
        `Run "partner-cli login --profile ${explicitProfile}" or "partner-cli profiles list".`,
      );
    }
    const chosen = this.baseUrlFor(name, profile);
    const baseUrl = chosen?.baseUrl;
    const baseUrlSource = chosen?.source ?? `profile "${name}"`;
    if (envKey) {
      if (!baseUrl) {
        throw new UsageError(
          "PARTNER_API_KEY is set but no base URL is known.",
          withNote(
            "Set PARTNER_BASE_URL or pass --base-url (the part before /api/partner/v1).",
            misspellingNote(this.env),
          ),
        );
      }
      return {
        kind: "target",
        target: {
          baseUrl,
          apiKey: envKey,
          profileName: profile ? name! : null,
          profile: profile ?? null,
          source: "env",
          baseUrlSource,
        },
      };
    }
    if (profile) {
      return {
        kind: "target",
        target: {
          baseUrl: baseUrl!,
          apiKey: await storedKey(this.configDir(), name!, profile),
          profileName: name!,
          profile,
          source: "profile",
          baseUrlSource,
        },
      };
    }
    if (this.globals.baseUrl || this.env.PARTNER_BASE_URL) {
      throw new UsageError(
        `A base URL was given (${baseUrlSource}) but no API key.`,
        withNote('Run "partner-cli login" or set PARTNER_API_KEY.', misspellingNote(this.env)),
      );
    }
    return { kind: "none" };
  }

  /**
   * The base URL and where it came from: --base-url > PARTNER_BASE_URL > the profile's (the one
   * precedence; `login` uses it too). Undefined when none of them gives one.
   */
  baseUrlFor(
    profileName: string | undefined,
    profile: Pick<Profile, "baseUrl"> | undefined,
  ): { baseUrl: string; source: string } | undefined {
    if (this.globals.baseUrl)
      return { baseUrl: normalizeBaseUrl(this.globals.baseUrl, "--base-url"), source: "--base-url" };
    if (this.env.PARTNER_BASE_URL)
      return {
        baseUrl: normalizeBaseUrl(this.env.PARTNER_BASE_URL, "PARTNER_BASE_URL"),
        source: "PARTNER_BASE_URL",
      };
    if (profile?.baseUrl) return { baseUrl: profile.baseUrl, source: `profile "${profileName}"` };
    return undefined;
  }

  /** Exit 4 for a run without credentials and without a terminal: what is missing and the ways on. */
  private noCredentialsError(): ConfigError {
    const lines = [
      "Give credentials: run \"partner-cli login\" once (it stores a profile), or set PARTNER_API_KEY and PARTNER_BASE_URL in this job's environment (cron and CI do not read your shell's startup files).",
      "To use the embedded sandbox on purpose (tests, demos), pass --sandbox or set PARTNER_SANDBOX=1.",
    ];
    if (this.env.PARTNER_API_KEY === "") lines.push("PARTNER_API_KEY is set, but empty.");
    const note = misspellingNote(this.env);
    if (note) lines.push(note);
    return new ConfigError(
      `No API key: no profile in ${this.configDir()} and no PARTNER_API_KEY. Without a terminal partner-cli does not fall back to the embedded sandbox; nothing was done.`,
      lines.join("\n"),
    );
  }

  /** Starts the embedded sandbox for this command; `notice` (given its data dir) is the one stderr line. */
  private async startEmbedded(notice: (dataDir: string) => string): Promise<Target> {
    const dataDir = this.sandboxDataDir();
    ensurePrivateDir(dirname(dataDir), dataDir.startsWith(this.stateDir()) ? "state" : "config");
    const { startEmbeddedSandbox } = await import("./sandbox/embedded.js");
    const sb = await startEmbeddedSandbox(dataDir);
    this.onClose(() => sb.close());
    this.io.err(notice(dataDir));
    return embeddedTarget(sb.url, sb.writeKey);
  }

  /** The client of this command's target (built once, closed with the Context). */
  async api(): Promise<ApiClient> {
    if (!this.apiClient) {
      const client = this.clientFor(await this.target());
      this.apiClient = client;
      this.onClose(() => client.close());
    }
    return this.apiClient;
  }

  /**
   * The one way to build a client: for a target (or a URL and key not stored yet, as `login` checks
   * them), with this command's retry policy, bounds, Ctrl-C, clock and --verbose trace. The caller
   * closes it (api() registers its own).
   */
  clientFor(
    t: Pick<Target, "baseUrl" | "apiKey" | "baseUrlSource"> & Partial<Pick<Target, "source">>,
    /**
     * Tighter bounds for a check that must not wait on a service that is down (sync status's clock);
     * `signal: undefined` for the clean-up a command does after Ctrl-C (a second Ctrl-C still quits).
     */
    quick?: Pick<ClientOptions, "retry" | "connectTimeoutMs" | "requestTimeoutMs" | "signal">,
  ): ApiClient {
    return new ApiClient({
      baseUrl: t.baseUrl,
      apiKey: t.apiKey,
      baseUrlSource: t.baseUrlSource,
      // The embedded sandbox runs in this process on loopback: never through a proxy.
      proxy: t.source === "embedded" ? undefined : proxyFromEnv(this.env),
      retry: this.init.retry ?? retryFromEnv(this.env),
      ...boundsFromEnv(this.env),
      signal: this.signal,
      ...quick,
      clock: this.clock,
      trace: this.verbose ? (line) => this.io.err(line) : undefined,
      onRetry: ({ reason, delayMs }) => {
        if (!this.verbose && this.io.stderrIsTTY)
          this.io.err(`(${reason}; retrying in ${Math.ceil(delayMs / 100) / 10}s)`);
      },
    });
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

/** A stored profile's key: from the OS keychain (loaded only then) or the config file. */
async function storedKey(configDir: string, name: string, profile: Profile): Promise<string> {
  if (profile.keyStorage === "keychain") {
    const { keychainAccount, keychainRead } = await import("./config/keychain.js");
    return keychainRead(keychainAccount(configDir, name), name);
  }
  if (!profile.apiKey) {
    throw new ConfigError(
      `Profile "${name}" in ${join(configDir, "config.json")} holds no API key. Nothing was sent.`,
      `Run "partner-cli login --profile ${name}" again.`,
    );
  }
  return profile.apiKey;
}

function embeddedTarget(baseUrl: string, apiKey: string): Target {
  return {
    baseUrl,
    apiKey,
    profileName: null,
    profile: null,
    source: "embedded",
    baseUrlSource: "the embedded sandbox",
  };
}

function joinAnd(items: string[]): string {
  return items.length <= 1
    ? (items[0] ?? "")
    : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

function withNote(hint: string, note: string | undefined): string {
  return note ? `${hint}\n${note}` : hint;
}

/**
 * Whether the embedded sandbox was chosen on purpose, and how: "--sandbox", "PARTNER_SANDBOX=1",
 * or undefined. PARTNER_SANDBOX takes 1/true/yes (on) and 0/false/no/empty (off), any case; any
 * other value is a usage error. Choosing the sandbox together with --base-url or --profile is a
 * usage error too: the two ask for different services.
 */
export function sandboxChoice(globals: GlobalOptions, env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.PARTNER_SANDBOX;
  let fromEnv = false;
  if (raw !== undefined) {
    const v = raw.trim().toLowerCase();
    if (v === "1" || v === "true" || v === "yes") fromEnv = true;
    else if (!(v === "" || v === "0" || v === "false" || v === "no"))
      throw new UsageError(
        "PARTNER_SANDBOX must be 1, true or yes to choose the embedded sandbox (0, false, no or empty: off).",
        "Set PARTNER_SANDBOX=1 to use the embedded sandbox, or unset it.",
      );
  }
  const by = globals.sandbox ? "--sandbox" : fromEnv ? `PARTNER_SANDBOX=${raw!.trim()}` : undefined;
  if (by) {
    const clash = globals.baseUrl ? "--base-url" : globals.profile ? "--profile" : undefined;
    if (clash) throw sandboxClash(by, clash);
  }
  return by;
}

/** The usage error for --sandbox (or PARTNER_SANDBOX) together with --base-url or --profile. */
export function sandboxClash(by: string, clash: string): UsageError {
  return new UsageError(
    `${by} chooses the embedded sandbox, and ${clash} another service; give one of them.`,
    `Drop ${clash} to use the sandbox, or drop ${by} to use ${clash === "--profile" ? "the profile" : "that URL"}.`,
  );
}

/**
 * Whether PARTNER_NO_INPUT asks for --no-input: 1, true or yes (on); 0, false, no or empty (off),
 * any case; any other value is a usage error (as PARTNER_SANDBOX's).
 */
function noInputFromEnv(env: NodeJS.ProcessEnv): boolean {
  const raw = env.PARTNER_NO_INPUT;
  if (raw === undefined || raw.trim() === "") return false;
  const on = parseBoolean(raw);
  if (on === undefined)
    throw new UsageError(
      "PARTNER_NO_INPUT must be 1, true or yes to never prompt (0, false, no or empty: off).",
      "Set PARTNER_NO_INPUT=1 (as --no-input), or unset it.",
    );
  return on;
}

/** PARTNER_RETRY_DEADLINE_MS / PARTNER_RETRY_BASE_MS tune the retry policy (tests, impatient cron jobs). */
export function retryFromEnv(env: NodeJS.ProcessEnv): Partial<RetrySettings> | undefined {
  const out: Partial<RetrySettings> = {};
  if (env.PARTNER_RETRY_DEADLINE_MS) out.deadlineMs = Number(env.PARTNER_RETRY_DEADLINE_MS);
  if (env.PARTNER_RETRY_BASE_MS) out.baseDelayMs = Number(env.PARTNER_RETRY_BASE_MS);
  return Object.keys(out).length ? out : undefined;
}
