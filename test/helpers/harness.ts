// The one test harness. `useSandbox()` registers a sandbox's lifecycle with vitest (started once per
// file, closed after it, optionally reset before each test) and returns everything a test needs to
// talk to it: a Context with captured streams, a raw client, raw HTTP, an in-process run of the whole
// program and a spawned run of the built CLI, each aimed at this sandbox with a private config dir.
// `withSandbox(opts, fn)` is the same for a sandbox that lives inside one test (a data dir, faults,
// a second organization's server): it is closed whatever the test does.
import { afterAll, beforeAll, beforeEach } from "vitest";
import type { ApiClient } from "../../src/api/client.js";
import type { SeedKind } from "../../src/sandbox/seed.js";
import { type SandboxOptions, startSandbox } from "../../src/sandbox/server.js";
import { cli } from "./cli.js";
import { assertDocumented, documentedValuesCheck } from "./documented.js";
import type { RunResult } from "./result.js";
import { runIn } from "./run.js";
import {
  type Captured,
  client,
  http,
  type RunningSandbox,
  type TestContextOptions,
  tempDir,
  testContext,
} from "./sandbox.js";

export type { Captured, RunResult, RunningSandbox, TestContextOptions };

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  /** Text on stdin. */
  input?: string;
  /** In-process runs only: pretend every stream is a terminal. */
  tty?: boolean;
  prompter?: TestContextOptions["prompter"];
  cwd?: string;
  timeout?: number;
  /** Which key PARTNER_API_KEY carries (default: the write key); null leaves it unset. */
  key?: string | null;
  /** A config dir to reuse across runs (default: a fresh one per run). */
  configDir?: string;
}

export interface SandboxFixture {
  /** The running sandbox (throws before `beforeAll` has started it). */
  readonly sb: RunningSandbox;
  readonly url: string;
  readonly writeKey: string;
  readonly readOnlyKey: string;
  /** PARTNER_BASE_URL, PARTNER_API_KEY and a fresh PARTNER_CLI_CONFIG_DIR, plus `extra`. */
  env(extra?: NodeJS.ProcessEnv, o?: Pick<RunOptions, "key" | "configDir">): NodeJS.ProcessEnv;
  /** A Context aimed at the sandbox, with captured stdout/stderr. */
  context(o?: TestContextOptions): { ctx: import("../../src/context.js").Context } & Captured;
  /** A raw client for arranging state (no retries). */
  client(key?: string): ApiClient;
  /** Raw HTTP: status, parsed body, headers. */
  http(
    method: string,
    path: string,
    o?: Parameters<typeof http>[3],
  ): Promise<{ status: number; body: any; headers: Headers }>;
  /** The whole program in-process (parse → action → exit code). */
  run(argv: string[], o?: RunOptions): Promise<RunResult>;
  /** The built CLI spawned without a terminal. */
  cli(argv: string[], o?: RunOptions): Promise<RunResult>;
  /** Back to a freshly seeded state, clock at zero offset. */
  reset(seed?: SeedKind): Promise<void>;
  /** Closes the sandbox and starts it again with the same options (a restart over its data dir). */
  restart(): Promise<void>;
}

export interface UseSandboxOptions extends Omit<SandboxOptions, "port"> {
  /** Reset to the seed before each test (true: the fixture's seed). */
  resetEach?: boolean | SeedKind;
  /**
   * The documented-values check (documented.ts) over every API answer: on unless false. With it, the
   * file (or withSandbox's test) fails after the sandbox closed when an answer held an undocumented
   * field or enum value.
   */
  checkAnswers?: boolean;
}

/** The fixture's methods over a getter for the running sandbox. */
export function fixtureOf(
  get: () => RunningSandbox,
  seed: SeedKind = "demo",
  restart: () => Promise<void> = async () => {
    throw new Error("this fixture cannot restart its sandbox");
  },
): SandboxFixture {
  const env = (extra: NodeJS.ProcessEnv = {}, o: Pick<RunOptions, "key" | "configDir"> = {}) => {
    const sb = get();
    const key = o.key === undefined ? sb.writeKey : o.key;
    return {
      PARTNER_BASE_URL: sb.url,
      ...(key === null ? {} : { PARTNER_API_KEY: key }),
      PARTNER_CLI_CONFIG_DIR: o.configDir ?? tempDir(),
      ...extra,
    };
  };
  return {
    get sb() {
      return get();
    },
    get url() {
      return get().url;
    },
    get writeKey() {
      return get().writeKey;
    },
    get readOnlyKey() {
      return get().readOnlyKey;
    },
    env,
    context: (o) => testContext(get(), o),
    client: (key) => client(get(), key),
    http: (method, path, o) => http(get(), method, path, o),
    async run(argv, o = {}) {
      return await runIn(argv, {
        env: env(o.env, o),
        ...(o.input !== undefined ? { stdin: o.input } : {}),
        ...(o.tty !== undefined ? { tty: o.tty } : {}),
        ...(o.prompter ? { prompter: o.prompter } : {}),
      });
    },
    async cli(argv, o = {}) {
      return await cli(argv, {
        env: env(o.env, o),
        ...(o.input !== undefined ? { input: o.input } : {}),
        ...(o.cwd ? { cwd: o.cwd } : {}),
        ...(o.timeout ? { timeout: o.timeout } : {}),
      });
    },
    async reset(s = seed) {
      const res = await http(get(), "POST", "/reset", { control: true, body: { seed: s } });
      if (res.status !== 200)
        throw new Error(`sandbox reset failed: ${res.status} ${JSON.stringify(res.body)}`);
    },
    restart,
  };
}

/** A sandbox for the whole test file; see the module comment. */
export function useSandbox(o: UseSandboxOptions = {}): SandboxFixture {
  const { resetEach, checkAnswers, ...rest } = o;
  const check = documentedValuesCheck();
  const options = checkAnswers === false ? rest : { ...rest, onAnswer: check.hook };
  let running: RunningSandbox | undefined;
  const fixture = fixtureOf(
    () => {
      if (!running)
        throw new Error("useSandbox(): the sandbox is not started yet (use it inside a test or hook)");
      return running;
    },
    options.seed ?? "demo",
    async () => {
      await running?.close();
      running = undefined;
      running = await startSandbox({ port: 0, ...options });
    },
  );
  beforeAll(async () => {
    running = await startSandbox({ port: 0, ...options });
  });
  afterAll(async () => {
    await running?.close();
    running = undefined;
    assertDocumented(check.found);
  });
  if (resetEach) {
    beforeEach(async () => {
      await fixture.reset(resetEach === true ? (options.seed ?? "demo") : resetEach);
    });
  }
  return fixture;
}

/** A sandbox that lives inside one test: started, handed to `fn`, closed whatever happens. */
export async function withSandbox<T>(
  o: Omit<SandboxOptions, "port"> & { port?: number; checkAnswers?: boolean },
  fn: (f: SandboxFixture) => Promise<T>,
): Promise<T> {
  const { checkAnswers, ...rest } = o;
  const check = documentedValuesCheck();
  const options = checkAnswers === false ? rest : { ...rest, onAnswer: check.hook };
  let running: RunningSandbox | undefined = await startSandbox({ port: 0, ...options });
  const get = () => {
    if (!running) throw new Error("withSandbox(): the sandbox did not start again");
    return running;
  };
  let result: T;
  try {
    result = await fn(
      fixtureOf(get, options.seed ?? "demo", async () => {
        await running?.close();
        running = undefined;
        running = await startSandbox({ port: 0, ...options });
      }),
    );
  } finally {
    await running?.close();
  }
  assertDocumented(check.found);
  return result;
}

export { tempDir };
