// The seam between declarations and run functions: every command that acts is wired (by
// src/cli/define.ts action) to a module exporting `<noun><Verb>Run(opts, ctx)`, and what commander
// parsed reaches it in `opts`, positionals by name.
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { wiringOf } from "../../src/cli/define.js";
import { makeCampaign } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { program } from "./tree.js";

/** Every command below the program (hidden ones too), with its path of names. */
function everyCommand(root: Command): { path: string[]; cmd: Command }[] {
  const out: { path: string[]; cmd: Command }[] = [];
  const visit = (cmd: Command, path: string[]) => {
    for (const c of cmd.commands) {
      out.push({ path: [...path, c.name()], cmd: c });
      visit(c, [...path, c.name()]);
    }
  };
  visit(root, []);
  return out;
}

/** `webhooks rotate-secret` → webhooksRotateSecretRun; `me` → meRun. */
function runName(path: string[]): string {
  const words = path.flatMap((p) => p.split("-"));
  return `${words.map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join("")}Run`;
}

describe("every command is wired to <noun><Verb>Run(opts, ctx)", () => {
  const commands = everyCommand(program());

  it("names the run function after the command's path", () => {
    expect(runName(["webhooks", "rotate-secret"])).toBe("webhooksRotateSecretRun");
    expect(runName(["sync", "status"])).toBe("syncStatusRun");
    expect(runName(["me"])).toBe("meRun");
  });

  // The program's own commands, not the API's: `help` prints help (src/cli/help-command.ts) and the
  // completion scripts' hidden `__complete` runs completionCompleteRun (commands/completion/complete.ts).
  const OWN: Record<string, string | undefined> = { help: undefined, __complete: "completionCompleteRun" };

  it("every leaf has an action, and every action names its run function by the rule", () => {
    const leavesWithout = commands.filter(
      (c) => c.cmd.commands.length === 0 && !wiringOf(c.cmd) && !(c.path.join(" ") in OWN),
    );
    expect(leavesWithout.map((c) => c.path.join(" "))).toEqual([]);
    expect(wiringOf(commands.find((c) => c.path.join(" ") === "__complete")!.cmd)?.name).toBe(OWN.__complete);
    const wired = commands.filter((c) => wiringOf(c.cmd) && !(c.path.join(" ") in OWN));
    // About 60 commands act; a walk that found few would prove nothing.
    expect(wired.length).toBeGreaterThan(50);
    const misnamed = wired
      .filter((c) => wiringOf(c.cmd)!.name !== runName(c.path))
      .map((c) => `${c.path.join(" ")}: ${wiringOf(c.cmd)!.name}, expected ${runName(c.path)}`);
    expect(misnamed).toEqual([]);
  });

  it("each module loaded by an action exports that function, taking (opts, ctx)", async () => {
    const problems: string[] = [];
    for (const { path, cmd } of commands) {
      const w = wiringOf(cmd);
      if (!w) continue;
      const mod = (await w.load()) as Record<string, unknown>;
      const fn = mod[w.name];
      if (typeof fn !== "function") problems.push(`${path.join(" ")}: no export ${w.name}`);
      else if (fn.length !== 2) problems.push(`${path.join(" ")}: ${w.name} takes ${fn.length} parameters`);
    }
    expect(problems).toEqual([]);
  }, 60_000);
});

describe("opts reach the run function, positionals by name", () => {
  const s = useSandbox({ resetEach: true });

  it("links get | create | pause | resume CAMPAIGN EXTERNAL_ID", async () => {
    await makeCampaign(s.sb, { externalReference: "wired" });
    const created = await s.run(["links", "create", "wired", "cr-0001", "--json"]);
    expect(created.exitCode).toBe(0);
    expect(created.stderr).toMatch(/Created the share link for cr-0001 on campaign wired/);
    expect(created.json()).toMatchObject({ creator: { externalId: "cr-0001" }, active: true });
    const paused = await s.run(["links", "pause", "wired", "cr-0001", "--json"]);
    expect(paused.exitCode).toBe(0);
    expect(paused.json()).toMatchObject({ active: false });
    const resumed = await s.run(["links", "resume", "wired", "cr-0001", "--json"]);
    expect(resumed.json()).toMatchObject({ active: true });
    const got = await s.run(["links", "get", "wired", "cr-0001", "--json"]);
    expect(got.json()).toMatchObject({ creator: { externalId: "cr-0001" }, active: true });
    const none = await s.run(["links", "get", "wired", "cr-0002"]);
    expect(none.exitCode).toBe(5);
    expect(none.stderr).toMatch(/partner-cli links create wired cr-0002/);
  });

  it("campaigns report and reports campaign take the campaign by its positional", async () => {
    const c = await makeCampaign(s.sb, { externalReference: "wired-report" });
    const a = await s.run(["campaigns", "report", "wired-report", "--json"]);
    expect(a.exitCode).toBe(0);
    expect(a.json().campaign.id).toBe(c.id);
    const b = await s.run(["reports", "campaign", c.id, "--json"]);
    expect(b.exitCode).toBe(0);
    expect(b.json().campaign.externalReference).toBe("wired-report");
  });

  it("campaigns activate | pause | end, each its own run function", async () => {
    await makeCampaign(s.sb, { externalReference: "wired-status" });
    const act = await s.run(["campaigns", "activate", "wired-status", "--json"]);
    expect(act.exitCode).toBe(0);
    expect(act.json().status).toBe("active");
    const pause = await s.run(["campaigns", "pause", "wired-status", "--json"]);
    expect(pause.json().status).toBe("paused");
    const end = await s.run(["campaigns", "end", "wired-status", "--yes", "--json"]);
    expect(end.json().status).toBe("ended");
  });

  it("sandbox advance DURATION: the parsed duration arrives as durationMs", async () => {
    const r = await s.run(["sandbox", "advance", "1h30m", "--json"]);
    expect(r.exitCode).toBe(0);
    expect(r.json().offsetMs).toBe(5_400_000);
  });
});
