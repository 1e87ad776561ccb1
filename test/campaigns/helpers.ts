// Test helpers for campaigns/links: a scripted Prompter, a run wrapper that returns the exit code,
// and arrangement shortcuts over raw HTTP.
import { exitCodeFor, formatError } from "../../src/main.js";
import type { Choice, Prompter } from "../../src/io/prompter.js";
import { http, type RunningSandbox, testContext } from "../helpers/sandbox.js";
import { SEED } from "../../src/sandbox/seed.js";

export interface Step {
  /** The prompt's message must match. */
  match: RegExp;
  /** The answer; `undefined` takes the prompt's default; a function picks among select choices. */
  answer?: string | boolean | ((choices: Choice<unknown>[]) => unknown);
}

export interface AskedPrompt {
  kind: "input" | "password" | "confirm" | "select";
  message: string;
  default?: unknown;
  choices?: Choice<unknown>[];
}

/** A Prompter that answers from a script, in order, and records every prompt. */
export function scriptedPrompter(steps: Step[]): Prompter & { asked: AskedPrompt[]; remaining(): number } {
  const queue = [...steps];
  const asked: AskedPrompt[] = [];
  const next = (p: AskedPrompt): Step => {
    asked.push(p);
    const s = queue.shift();
    if (!s) throw new Error(`unexpected prompt: ${p.message}`);
    if (!s.match.test(p.message)) throw new Error(`prompt "${p.message}" does not match ${s.match}`);
    return s;
  };
  return {
    asked,
    remaining: () => queue.length,
    async input(o) {
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

/** Runs a command function like main.run does: the exit code, and stderr lines for the error. */
export async function exitOf(fn: () => Promise<void>): Promise<{ code: number; error: string }> {
  try {
    await fn();
    return { code: 0, error: "" };
  } catch (err) {
    return { code: exitCodeFor(err), error: formatError(err, true).join("\n") };
  }
}

/** Calendar day `offset` days from today (UTC). */
/** Runs a command's run function with a test Context on `sb`: exit code, error line and output. */
export async function runCommand<T>(
  sb: RunningSandbox,
  fn: (o: T, ctx: any) => Promise<void>,
  o: T,
  opts: Parameters<typeof testContext>[1] = {},
) {
  const t = testContext(sb, opts);
  const r = await exitOf(() => fn(o, t.ctx));
  await t.ctx.close();
  return { ...r, stdout: t.stdout(), stderr: t.stderr() };
}

export function day(offset = 0): string {
  return new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
}

/** Creates a campaign over raw HTTP; returns the body. */
export async function makeCampaign(
  sb: RunningSandbox,
  over: Record<string, unknown> = {},
): Promise<{ id: string; externalReference: string | null; status: string } & Record<string, any>> {
  const r = await http(sb, "POST", "/campaigns", {
    body: {
      name: "Test campaign",
      baseGs1: SEED.offers.oats,
      dates: { from: day(0), through: day(30) },
      codeLimit: 100,
      commission: { rate: 0.1, estimatedUnitSalePrice: 4.99 },
      externalReference: `ref-${Math.random().toString(36).slice(2, 10)}`,
      ...over,
    },
  });
  if (r.status !== 201) throw new Error(`campaign create: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Adds `n` active creators `prefix-00001`… with POST /creators/batch (1,000 per call). */
export async function addCreators(sb: RunningSandbox, n: number, prefix = "bulk"): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < n; start += 1000) {
    const creators = [];
    for (let i = start; i < Math.min(n, start + 1000); i++) {
      const externalId = `${prefix}-${String(i + 1).padStart(5, "0")}`;
      ids.push(externalId);
      creators.push({ externalId, name: `Creator ${i + 1}` });
    }
    const r = await http(sb, "POST", "/creators/batch", { body: { creators } });
    if (r.status !== 200 || r.body.summary.rejected)
      throw new Error(`batch: ${r.status} ${JSON.stringify(r.body)}`);
  }
  return ids;
}

export async function countCampaigns(sb: RunningSandbox, ref: string): Promise<number> {
  const r = await http(sb, "GET", `/campaigns?externalReference=${encodeURIComponent(ref)}`);
  return r.body.totalCount;
}
