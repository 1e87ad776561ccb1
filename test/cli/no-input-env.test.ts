// PARTNER_NO_INPUT=1 is --no-input: on a terminal, a command that would prompt refuses instead,
// touching nothing. 0, false, no or empty leave prompts on; any other value is a usage error.
import { describe, expect, it } from "vitest";
import { campaignsCreateRun } from "../../src/commands/campaigns/create.js";
import { runFn, scriptedPrompter } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";

const s = useSandbox({ resetEach: true });

const campaigns = async () => (await s.http("GET", "/campaigns")).body.totalCount as number;

/** `campaigns create` without flags on a terminal, with PARTNER_NO_INPUT set to `value`. */
async function createAtTerminal(value: string | undefined) {
  const prompter = scriptedPrompter([]);
  const env = value === undefined ? {} : { PARTNER_NO_INPUT: value };
  const { ctx } = s.context({ tty: true, prompter, env });
  const r = await runFn(ctx, () => campaignsCreateRun({}, ctx));
  await ctx.close();
  return { r, asked: prompter.asked.length };
}

describe("PARTNER_NO_INPUT", () => {
  it.each(["1", "true", "YES"])(
    "PARTNER_NO_INPUT=%s on a terminal never prompts: exit 2, nothing created",
    async (v) => {
      const before = await campaigns();
      const { r, asked } = await createAtTerminal(v);
      expect(r.exitCode).toBe(2);
      expect(r.error).toMatch(/Missing required flags: --name, --offer/);
      expect(r.error).toContain("--no-input never prompts");
      expect(asked).toBe(0);
      expect(await campaigns()).toBe(before);
    },
  );

  it.each([undefined, "0", "false", "no", ""])("PARTNER_NO_INPUT=%s leaves the prompts on", async (v) => {
    const { asked } = await createAtTerminal(v);
    // The scripted prompter has no answers: the first prompt shown ends the run.
    expect(asked).toBeGreaterThan(0);
  });

  it("any other value is a usage error that names the values, nothing done", async () => {
    const before = await campaigns();
    const r = await s.run(["campaigns", "create"], { env: { PARTNER_NO_INPUT: "maybe" }, tty: true });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(
      "PARTNER_NO_INPUT must be 1, true or yes to never prompt (0, false, no or empty: off).",
    );
    expect(await campaigns()).toBe(before);
  });
});
