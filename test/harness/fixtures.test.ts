// The fixtures module: one campaign maker, one scripted prompter, runFn's RunResult, and a restart
// of a sandbox over its data dir.
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/errors.js";
import {
  makeCampaign,
  runFn,
  SEED,
  scriptedPrompter,
  TRAFFIC,
  useFeedCampaign,
} from "../helpers/fixtures.js";
import { tempDir, useSandbox, withSandbox } from "../helpers/harness.js";

describe("makeCampaign", () => {
  const s = useSandbox({ resetEach: true });

  it("a draft on the seeded oats offer by default, without links", async () => {
    const c = await makeCampaign(s);
    expect(c).toMatchObject({ status: "draft", offer: { baseGs1: SEED.offers.oats }, codes: { limit: 100 } });
    expect((await s.http("GET", `/campaigns/${c.id}/creators`)).body.totalCount).toBe(0);
  });

  it("TRAFFIC: active with its three creators linked; fields given win over the preset", async () => {
    const c = await makeCampaign(s, { ...TRAFFIC, codeLimit: 20, externalReference: "t-1" });
    expect(c).toMatchObject({ status: "active", externalReference: "t-1", codes: { limit: 20 } });
    const links = (await s.http("GET", `/campaigns/${c.id}/creators`)).body.items;
    expect(links.map((l: { creator: { externalId: string } }) => l.creator.externalId).sort()).toEqual([
      "cr-0001",
      "cr-0002",
      "cr-0003",
    ]);
  });

  it("a refused create throws with the status and body, and makes nothing", async () => {
    await expect(makeCampaign(s, { baseGs1: SEED.offers.expired })).rejects.toThrow(/campaign create: 4\d\d/);
    expect((await s.http("GET", "/campaigns")).body.totalCount).toBe(0);
  });
});

describe("useFeedCampaign", () => {
  const s = useSandbox();
  const feed = useFeedCampaign(s, { claims: 5, redemptions: 3, seed: 1 });

  it("makes an active campaign over the roster, with the traffic asked for", async () => {
    const c = (await s.http("GET", `/campaigns/${feed.id}`)).body;
    expect(c.status).toBe("active");
    expect((await s.http("GET", "/redemptions?limit=1000")).body.items).toHaveLength(3);
  });
});

describe("scriptedPrompter", () => {
  it("answers in order, records the prompts and the input validators", async () => {
    const p = scriptedPrompter([
      { match: /Name/, answer: "Ann" },
      { kind: "confirm", answer: true },
    ]);
    expect(await p.input({ message: "Name?", validate: (v) => (v ? true : "required") })).toBe("Ann");
    expect(await p.confirm({ message: "Sure?" })).toBe(true);
    expect(p.asked.map((a) => [a.kind, a.message])).toEqual([
      ["input", "Name?"],
      ["confirm", "Sure?"],
    ]);
    expect(p.validators.get("Name?")?.("")).toBe("required");
    expect(p.remaining()).toBe(0);
  });

  it("refuses a prompt of another kind, one that does not match, and one too many", async () => {
    await expect(scriptedPrompter([{ kind: "confirm" }]).password({ message: "Key" })).rejects.toThrow(
      /is password, not confirm/,
    );
    await expect(scriptedPrompter([{ match: /Name/ }]).input({ message: "Age" })).rejects.toThrow(
      /does not match/,
    );
    await expect(scriptedPrompter().confirm({ message: "Delete?" })).rejects.toThrow(
      /unexpected confirm prompt: Delete\?/,
    );
  });
});

describe("runFn", () => {
  it("the exit code main.ts gives, the error as main prints it, and what was thrown", async () => {
    const r = await runFn(null, async () => {
      throw new UsageError("--x: bad");
    });
    expect(r.exitCode).toBe(2);
    expect(r.error).toContain("--x: bad");
    expect(r.thrown).toBeInstanceOf(UsageError);
  });

  it("captured stdout, parsed by json(); a Context the test made stays open and is read", async () => {
    const ok = await runFn(null, async (ctx) => {
      ctx.io.out('{"a":1}\n');
    });
    expect([ok.exitCode, ok.error, ok.json()]).toEqual([0, "", { a: 1 }]);
    await withSandbox({ seed: "empty" }, async (f) => {
      const t = f.context();
      const r = await runFn(t.ctx, async (ctx) => {
        ctx.io.out("hello\n");
      });
      expect(r.stdout).toBe("hello\n");
      t.ctx.io.out("more\n");
      expect(t.stdout()).toBe("hello\nmore\n");
      await t.ctx.close();
    });
  });
});

describe("restart", () => {
  it("withSandbox: the state of the data dir is served again after a restart, on a new port", async () => {
    await withSandbox({ dataDir: tempDir("pcli-restart-"), seed: "empty" }, async (f) => {
      expect((await f.http("PUT", "/creators/kept", { body: { name: "Kept" } })).status).toBe(201);
      const before = f.url;
      await f.restart();
      expect(f.url).not.toBe(before);
      expect((await f.http("GET", "/creators/kept")).body.name).toBe("Kept");
    });
  });
});
