// The one place tests arrange things and run code under test: the seeded ids (SEED), one campaign
// maker, one scripted prompter, and runs of a command's run function with a test Context (the same
// RunResult as the harness's in-process and spawned runs).
import { mkdirSync, mkdtempSync, readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Temporal } from "temporal-polyfill";
import { beforeAll, expect } from "vitest";
import type { ApiClient, RequestSpec } from "../../src/api/client.js";
import { Context } from "../../src/context.js";
import { LockedError } from "../../src/errors.js";
import type { Choice, Prompter } from "../../src/io/prompter.js";
import { exitCodeFor, formatError } from "../../src/main.js";
import { SEED } from "../../src/sandbox/seed.js";
import { type Campaign, strictCampaigns } from "../../src/spec/campaigns.js";
import { type RunResult, runResult } from "./result.js";
import { capturedOf, http, type RunningSandbox, type TestContextOptions, testContext } from "./sandbox.js";
import { until } from "./wait.js";

export { SEED };
export type { RunResult };

/** A running sandbox or a harness fixture (`useSandbox()`/`withSandbox()`). */
export type SandboxLike = RunningSandbox | { readonly sb: RunningSandbox };
export const runningOf = (t: SandboxLike): RunningSandbox => ("sb" in t ? t.sb : t);

/** The main organization's reporting time zone in the seed. */
export const NY = "America/New_York";

/** The calendar day of the sandbox clock in `tz`, plus `offset` days. */
export function dayIn(t: SandboxLike, tz: string, offset = 0): string {
  return Temporal.Instant.fromEpochMilliseconds(runningOf(t).sandbox.clock.nowMs())
    .toZonedDateTimeISO(tz)
    .toPlainDate()
    .add({ days: offset })
    .toString();
}

/** A campaign to make: the create body's fields, and what to do after the create. */
export interface CampaignInit {
  name?: string;
  baseGs1?: string;
  /** ISO days, or a number of days from the sandbox clock's day in New York (default 0 .. 30). */
  dates?: { from?: string | number; through?: string | number };
  codeLimit?: number;
  commission?: { rate?: number | string; estimatedUnitSalePrice?: number | string };
  externalReference?: string | null;
  retailer?: { emailDomain: string; name: string } | null;
  /** "active" activates it after the create (default: a draft). */
  status?: "draft" | "active";
  /** Share links for these creators, or "roster": an assignment job over the roster, waited for. */
  creators?: string[] | "roster";
  /** The key to act with (default: the write key). */
  key?: string;
}

/** The campaign the traffic, redemptions and reports tests run on: active, no supply limit, 3 links. */
export const TRAFFIC: CampaignInit = {
  name: "Traffic test",
  baseGs1: SEED.offers.oatsUnknownSupply,
  dates: { from: -2, through: 30 },
  codeLimit: 100_000,
  commission: { rate: 0.1, estimatedUnitSalePrice: 2.5 },
  status: "active",
  creators: ["cr-0001", "cr-0002", "cr-0003"],
};

/** A campaign for export/sync tests: active, room for millions of codes, the whole roster linked. */
export const FEED: CampaignInit = {
  name: "Export test",
  baseGs1: SEED.offers.oatsUnknownSupply,
  // Five days back: whatever the hour, the reporting time zone's last three days are inside.
  dates: { from: -5, through: 60 },
  codeLimit: 5_000_000,
  status: "active",
  creators: "roster",
};

/**
 * A FEED campaign with simulated traffic (`simulate` body without the campaign), made in a beforeAll
 * of the calling file or describe; `.id` is its id once made.
 */
export function useFeedCampaign(t: SandboxLike, traffic: Record<string, unknown>): { readonly id: string } {
  let id: string | undefined;
  beforeAll(async () => {
    id = (await makeCampaign(t, FEED)).id;
    await simulate(t, { campaign: id, ...traffic });
  });
  return {
    get id() {
      if (id === undefined) throw new Error("useFeedCampaign(): not made yet (use it inside a test or hook)");
      return id;
    },
  };
}

const must = (what: string, res: { status: number; body: unknown }, ...ok: number[]) => {
  if (!ok.includes(res.status)) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
};

/** Creates a campaign through the API (then activates it and links creators when asked). */
export async function makeCampaign(t: SandboxLike, o: CampaignInit = {}): Promise<Campaign> {
  const sb = runningOf(t);
  const day = (d: string | number) => (typeof d === "number" ? dayIn(sb, NY, d) : d);
  const { status = "draft", creators = [], key = sb.writeKey, dates, commission, ...fields } = o;
  const body = {
    name: "Test campaign",
    baseGs1: SEED.offers.oats,
    codeLimit: 100,
    ...fields,
    dates: { from: day(dates?.from ?? 0), through: day(dates?.through ?? 30) },
    commission: { rate: 0.1, estimatedUnitSalePrice: 4.99, ...commission },
  };
  const res = await http(sb, "POST", "/campaigns", { body, key });
  must("campaign create", res, 201);
  const id: string = res.body.id;
  if (status === "draft" && creators.length === 0) return strictCampaigns.Campaign.parse(res.body);
  if (status === "active")
    must("activate", await http(sb, "POST", `/campaigns/${id}/status`, { body: { status }, key }), 200);
  if (creators === "roster") await assignRoster(sb, id, key);
  else
    for (const c of creators)
      must(
        "link",
        await http(sb, "POST", `/campaigns/${id}/creators/${encodeURIComponent(c)}`, { key }),
        200,
        201,
      );
  return getCampaign(sb, id);
}

async function assignRoster(sb: RunningSandbox, id: string, key: string) {
  const job = await http(sb, "POST", `/campaigns/${id}/assignments`, { body: { scope: "roster" }, key });
  must("assign", job, 202);
  await until(
    async () => {
      const j = await http(sb, "GET", `/campaigns/${id}/assignments/${job.body.job.id}`, { key });
      return j.body.status === "completed" || j.body.status === "failed";
    },
    30_000,
    "the roster assignment job finished",
  );
}

/** A campaign as GET /campaigns/{id} shows it (strictly parsed). */
export async function getCampaign(t: SandboxLike, id: string): Promise<Campaign> {
  const res = await http(runningOf(t), "GET", `/campaigns/${id}`);
  must("campaign get", res, 200);
  return strictCampaigns.Campaign.parse(res.body);
}

/** POST /_sandbox/simulate; the summary (throws unless the status is `status`). */
export async function simulate(t: SandboxLike, body: Record<string, unknown>, status = 200, key?: string) {
  const res = await http(runningOf(t), "POST", "/simulate", { control: true, body, ...(key ? { key } : {}) });
  must("simulate", res, status);
  return res.body;
}

export interface Step {
  /** The prompt's message must match (default: any). */
  match?: RegExp;
  /** The prompt must be of this kind (default: any). */
  kind?: AskedPrompt["kind"];
  /** The answer; `undefined` takes the prompt's default; a function picks among select choices. */
  answer?: string | boolean | ((choices: Choice<unknown>[]) => unknown);
}

export interface AskedPrompt {
  kind: "input" | "password" | "confirm" | "select";
  message: string;
  default?: unknown;
  choices?: Choice<unknown>[];
}

export type ScriptedPrompter = Prompter & {
  /** Every prompt shown, in order. */
  asked: AskedPrompt[];
  /** Steps not used yet. */
  remaining(): number;
  /** The validate function of each input prompt, by message. */
  validators: Map<string, (v: string) => true | string>;
};

/** A Prompter that answers from a script, in order, and records every prompt; an extra prompt throws. */
export function scriptedPrompter(steps: Step[] = []): ScriptedPrompter {
  const queue = [...steps];
  const asked: AskedPrompt[] = [];
  const validators = new Map<string, (v: string) => true | string>();
  const next = (p: AskedPrompt): Step => {
    asked.push(p);
    const s = queue.shift();
    if (!s) throw new Error(`unexpected ${p.kind} prompt: ${p.message}`);
    if (s.match && !s.match.test(p.message))
      throw new Error(`prompt "${p.message}" does not match ${s.match}`);
    if (s.kind && s.kind !== p.kind) throw new Error(`prompt "${p.message}" is ${p.kind}, not ${s.kind}`);
    return s;
  };
  return {
    asked,
    validators,
    remaining: () => queue.length,
    async input(o) {
      if (o.validate) validators.set(o.message, o.validate);
      const s = next({ kind: "input", message: o.message, default: o.default });
      const v = s.answer === undefined ? (o.default ?? "") : String(s.answer);
      const ok = o.validate ? o.validate(v) : true;
      if (ok !== true) throw new Error(`answer "${v}" to "${o.message}" refused: ${ok}`);
      return v;
    },
    async password(o) {
      const s = next({ kind: "password", message: o.message });
      return String(s.answer ?? "");
    },
    async confirm(o) {
      const s = next({ kind: "confirm", message: o.message, default: o.default });
      return s.answer === undefined ? Boolean(o.default) : Boolean(s.answer);
    },
    async select<T>(o: { message: string; choices: Choice<T>[]; default?: T | undefined }): Promise<T> {
      const s = next({ kind: "select", message: o.message, choices: o.choices as Choice<unknown>[] });
      const value =
        typeof s.answer === "function" ? s.answer(o.choices as Choice<unknown>[]) : (s.answer ?? o.default);
      const choice = o.choices.find((c) => c.value === value);
      if (!choice) throw new Error(`no choice ${String(value)} for "${o.message}"`);
      if (choice.disabled) throw new Error(`choice ${String(value)} is disabled`);
      return value as T;
    },
  };
}

/** A run of a run function: the harness's RunResult, plus what was thrown and the lines main would print. */
export interface FnResult extends RunResult {
  /** The error as main.ts prints it (message and hints), "" when none. */
  error: string;
  /** What the run function threw (undefined when it returned). */
  thrown: unknown;
}

export interface RunFnOptions extends TestContextOptions {
  /** Runs before `fn` with the same Context (its throw is the run's result too). */
  setup?: (ctx: Context) => Promise<void>;
  /** Every call of the Context's API client goes through this (`call` makes the real one). */
  intercept?: (
    spec: RequestSpec<unknown>,
    call: (spec: RequestSpec<unknown>) => Promise<unknown>,
  ) => Promise<unknown>;
}

/**
 * Runs a command's run function the way main.ts does: the exit code exitCodeFor gives, the captured
 * streams, the error. `on` is where: a sandbox (a fresh test Context aimed at it, closed after), null
 * (a Context without credentials), or a Context the test made with `s.context()` (left open for it;
 * the result's streams are what it captured so far).
 */
export async function runFn(
  on: SandboxLike | Context | null,
  fn: (ctx: Context) => Promise<unknown>,
  o: RunFnOptions = {},
): Promise<FnResult> {
  const { setup, intercept, ...ctxOptions } = o;
  const made = on instanceof Context;
  const c = made ? { ctx: on, ...capturedOf(on) } : testContext(on ? runningOf(on) : null, ctxOptions);
  let exitCode = 0;
  let thrown: unknown;
  try {
    if (intercept) {
      const api = await c.ctx.api();
      const call = api.call.bind(api);
      api.call = ((spec: RequestSpec<unknown>) => intercept(spec, call)) as ApiClient["call"];
    }
    await setup?.(c.ctx);
    await fn(c.ctx);
  } catch (err) {
    thrown = err;
    exitCode = exitCodeFor(err);
  } finally {
    if (!made) await c.ctx.close();
  }
  const error = thrown === undefined ? "" : formatError(thrown, true).join("\n");
  return { ...runResult({ exitCode, stdout: c.stdout(), stderr: c.stderr() }), error, thrown };
}

/** Every file of a data dir with its size and modification time. */
export function dirFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[p] = `${statSync(p).size}@${statSync(p).mtimeMs}`;
    }
  };
  walk(dir);
  return out;
}

/**
 * A time the sandbox stamped (ISO, whole seconds) lies between two reads of its clock taken around
 * the request that stamped it: a second may tick between the request and a read after it.
 */
export function expectStampedBetween(stamp: string, before: string, after: string): void {
  expect(stamp >= before && stamp <= after, `${before} <= ${stamp} <= ${after}`).toBe(true);
}

/**
 * Bundles a test worker script (TypeScript) into a module inside the repository's node_modules/.cache,
 * so its bare imports (native packages) resolve; returns the module's path and its folder.
 */
export async function bundleWorker(entry: string, prefix: string): Promise<{ worker: string; dir: string }> {
  const root = fileURLToPath(new URL("../../", import.meta.url));
  mkdirSync(join(root, "node_modules/.cache"), { recursive: true });
  const dir = mkdtempSync(join(root, `node_modules/.cache/${prefix}-`));
  const worker = join(dir, `${basename(entry).replace(/\.ts$/, "")}.mjs`);
  const { build } = await import("esbuild");
  await build({
    entryPoints: [join(root, entry)],
    outfile: worker,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    logLevel: "warning",
  });
  return { worker, dir };
}

/** The LockedError (exit 9) a promise rejects with. */
export async function lockRefusal(p: Promise<unknown>): Promise<LockedError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LockedError);
  expect(exitCodeFor(err)).toBe(9);
  return err as LockedError;
}

/** `n` campaign.status_changed events (one made-up campaign, active → paused) in the log of the test key's organization. */
export async function emitStatusChanges(t: SandboxLike, n: number): Promise<void> {
  const sb = runningOf(t);
  const me = await http(sb, "GET", "/me");
  const org = sb.sandbox.org(me.body.organization.id)!;
  const campaign = { id: "0b7e6a7c-1111-4222-8333-944445555666", externalReference: null, name: "Spring" };
  for (let i = 0; i < n; i++)
    sb.sandbox.emit(org, "campaign.status_changed", { campaign, from: "active", to: "paused" });
}
