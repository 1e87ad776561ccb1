// Issue 26, items 4 and 5: a view-only campaign (the organization lost access to its brand) shows
// as such in lists, `get` and the errors of changes and of the wizard; every 409 hint names the
// actual cause (the spec answers `conflict` for all of them) and the command for it.
import { beforeEach, describe, expect, it } from "vitest";
import { campaignsCreateRun } from "../../src/commands/campaigns/create.js";
import { SEED } from "../../src/sandbox/seed.js";
import { makeCampaign, runFn, scriptedPrompter } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { day } from "./helpers.js";

const s = useSandbox();
beforeEach(async () => {
  await s.http("POST", "/reset", { control: true, body: {} });
});

const OATS = SEED.brands.oats;

async function loseOats(): Promise<void> {
  const brandId = (await s.http("GET", `/offers/${SEED.offers.oats}`)).body.brand.id;
  const r = await s.http("POST", `/brands/${brandId}/access`, { control: true, body: { access: false } });
  expect(r.status).toBe(200);
}

async function campaignState(ref: string) {
  return (await s.http("GET", `/campaigns?externalReference=${ref}`)).body.items[0];
}

describe("a view-only campaign", () => {
  it("is shown as view-only, and why, in lists and get (JSON stays the API's object)", async () => {
    await makeCampaign(s.sb, { externalReference: "vo", name: "View only", status: "active" });
    await makeCampaign(s.sb, {
      externalReference: "other",
      name: "Other",
      baseGs1: SEED.offers.sodaZero,
      codeLimit: 5,
    });
    await loseOats();
    const list = await s.run(["campaigns", "list"]);
    expect(list.exitCode).toBe(0);
    expect(list.stdout).toMatch(/\tvo\tView only\tactive \(view-only\)\t/);
    expect(list.stdout).toMatch(/\tother\tOther\tdraft\t/);
    expect(list.stderr).toContain(
      "1 campaign is view-only: the organization lost access to its brand (reads, reports and exports work; every change is refused).",
    );
    const get = await s.run(["campaigns", "get", "vo"]);
    expect(get.stdout).toContain(
      `status\tactive (view-only): the organization lost access to its brand ${OATS}: reads, reports and exports work; every change is refused\n`,
    );
    const json = await s.run(["campaigns", "get", "vo", "--json"]);
    expect(json.json()).toMatchObject({ status: "active", allowedStatuses: [] });
  });

  it("a change is refused (exit 6) with the cause and the command that shows it; nothing changes", async () => {
    await makeCampaign(s.sb, { externalReference: "vo", name: "View only", status: "active" });
    await loseOats();
    const r = await s.run(["campaigns", "update", "vo", "--name", "Renamed"]);
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toContain(
      `Nothing was changed. Campaign vo is view-only: the organization lost access to its brand ${OATS}: reads, reports and exports work; every change is refused. See it: partner-cli campaigns get vo`,
    );
    const pause = await s.run(["campaigns", "pause", "vo"]);
    expect(pause.exitCode).toBe(6);
    expect(pause.stderr).toContain("Campaign vo is view-only: the organization lost access to its brand");
    expect((await campaignState("vo")).name).toBe("View only");
  });

  it("the wizard on an offer of a brand no longer accessible: exit 6, says why, nothing created", async () => {
    await loseOats();
    const prompter = scriptedPrompter([
      { match: /Campaign name/, answer: "Oats again" },
      { match: /Create this campaign\?/, answer: true },
    ]);
    const { ctx, stderr } = s.context({ tty: true, prompter });
    const flags = { offer: SEED.offers.oats, from: day(0), through: day(5), codeLimit: "5", rate: "0.1" };
    const r = await runFn(ctx, () =>
      campaignsCreateRun({ ...flags, unitPrice: "1", externalReference: "oats-again" }, ctx),
    );
    await ctx.close();
    expect(r.exitCode).toBe(6);
    expect(r.error).toContain(
      `Nothing was created. The organization lost access to the brand ${OATS}, so its campaigns are view-only and no new one can be made on its offers. Offers a campaign can use: partner-cli offers list --distributable`,
    );
    expect(stderr()).not.toMatch(/Created campaign/);
    expect(await campaignState("oats-again")).toBeUndefined();
  });
});

describe("409 hints name the actual cause and its command", () => {
  it("links assign on an ended campaign: the campaign has ended, not 'another assignment is running'", async () => {
    await makeCampaign(s.sb, { externalReference: "done", status: "active" });
    await s.run(["campaigns", "end", "done", "--yes"]);
    const r = await s.run(["links", "assign", "done", "--roster"]);
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toContain(
      "Campaign done has ended, and ended is final: nothing on it can change or be added. Active campaigns: partner-cli campaigns list --status active",
    );
    expect(r.stderr).not.toMatch(/another assignment|still running/i);
  });

  it("links create for a deactivated creator: names the creator and `roster set ID --active`", async () => {
    await makeCampaign(s.sb, { externalReference: "camp" });
    const r = await s.run(["links", "create", "camp", "cr-0012"]);
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toContain(
      "Creator cr-0012 is deactivated on the roster, and only active creators get links. Reactivate it, then run this again: partner-cli roster set cr-0012 --active",
    );
    expect(r.stderr).not.toMatch(/ended campaign, for a deactivated creator, or/);
    const links = await s.http("GET", `/campaigns/${(await campaignState("camp")).id}/creators`);
    expect(links.body.totalCount).toBe(0);
  });

  it("links create and assign on a view-only campaign: the brand access, not a list of causes", async () => {
    await makeCampaign(s.sb, { externalReference: "vo" });
    await loseOats();
    for (const argv of [
      ["links", "create", "vo", "cr-0001"],
      ["links", "assign", "vo", "--roster"],
    ]) {
      const r = await s.run(argv);
      expect(r.exitCode, argv.join(" ")).toBe(6);
      expect(r.stderr, argv.join(" ")).toContain(
        "Campaign vo is view-only: the organization lost access to its brand",
      );
    }
  });
});
