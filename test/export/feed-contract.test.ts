// The feed's contract checked, not assumed, for `redemptions export --out FILE`: a cursor that loops,
// a 2-cycle of cursors and recordedAt going backwards stop the run before the bad page (exit 4) with
// everything before it committed and the cursor at the last good page; ids repeated across pages
// are written once and counted; the overall bound of a run (PARTNER_FEED_MAX_DURATION) on the
// injected clock. Faults injected by the sandbox (POST /_sandbox/faults {feed}); real HTTP.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { redemptionsExportRun as exportRun } from "../../src/commands/redemptions/export.js";
import { PendingError } from "../../src/errors.js";
import { encodeCursor } from "../../src/sandbox/handlers/redemptions.js";
import { simulate, useFeedCampaign } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { tempDir } from "../helpers/sandbox.js";
import { feedIds } from "./arrange.js";

const LIMIT = 50;

describe("redemptions export when the service breaks the feed's contract", () => {
  const box = useSandbox();
  const campaign = useFeedCampaign(box, { claims: 420, redemptions: 400, seed: 11 });

  const setFeedFault = (feed: Record<string, unknown> | null) =>
    box.http("POST", "/faults", { control: true, body: { feed } });
  const exportTo = (out: string, configDir: string) =>
    box.run(["redemptions", "export", "--out", out, "--page-size", String(LIMIT), "--json"], { configDir });
  const lines = (path: string) => readFileSync(path, "utf8").split("\n").slice(0, -1);
  const idOfLine = (line: string) => line.split(",")[0]!;

  /** The whole feed exported cleanly: the header and one line per row, in feed order. */
  async function reference(): Promise<string[]> {
    const out = join(tempDir(), "ref.csv");
    const r = await exportTo(out, tempDir());
    expect(r.exitCode, r.stderr).toBe(0);
    const all = lines(out);
    expect(all.length - 1).toBe((await feedIds(box.sb)).length);
    return all;
  }

  for (const kind of ["cursor-loop", "cursor-cycle", "time-backwards"] as const) {
    it(`${kind}: exit 4 naming the cursor and the page; the file holds exactly the pages before it; a re-run after the fault continues, every id once`, async () => {
      const ref = await reference();
      const at = 3 * LIMIT; // pages 1-3 are good, page 4 is bad
      const out = join(tempDir(), "r.csv");
      const configDir = tempDir();
      await setFeedFault({ feed: "redemptions", kind, at });
      let r: Awaited<ReturnType<typeof exportTo>>;
      try {
        r = await exportTo(out, configDir);
      } finally {
        await setFeedFault(null);
      }
      expect(r.exitCode, r.stderr).toBe(4);
      const error = JSON.parse(r.stderr).error;
      expect(error.code).toBe("feed_contract_broken");
      expect(error.message).toContain("the redemption feed at page 4 of this run");
      expect(error.message).toContain(`read with cursor "${encodeCursor(at)}"`);
      expect(error.message).toContain("Nothing of page 4 was handled");
      if (kind === "cursor-loop")
        expect(error.message).toContain("its nextCursor is the cursor that fetched it");
      if (kind === "cursor-cycle")
        expect(error.message).toContain(
          `"${encodeCursor(2 * LIMIT)}" is the cursor page 3 of this run was read with`,
        );
      if (kind === "time-backwards")
        expect(error.message).toMatch(/recordedAt goes backwards: .* the last of page 3/);
      // Exactly what was committed before the bad page: the header and the rows of pages 1-3.
      expect(readFileSync(out, "utf8")).toBe(`${ref.slice(0, 1 + at).join("\n")}\n`);

      // The cursor stayed at the last good page: the next run starts at page 4 and ends with every id once.
      const again = await exportTo(out, configDir);
      expect(again.exitCode, again.stderr).toBe(0);
      const summary = JSON.parse(again.stdout).summary;
      expect(summary.cursorBefore).toBe(encodeCursor(at));
      expect(summary.rows).toBe(ref.length - 1 - at);
      expect(summary.repeatedIds).toBe(0);
      expect(readFileSync(out, "utf8")).toBe(`${ref.join("\n")}\n`);
    });
  }

  it("repeat-ids: every id once, exit 0, the repeated ids skipped and counted (stderr and --json)", async () => {
    const ref = await reference();
    const out = join(tempDir(), "r.csv");
    const count = 7;
    await setFeedFault({ feed: "redemptions", kind: "repeat-ids", at: LIMIT, count });
    let r: Awaited<ReturnType<typeof exportTo>>;
    try {
      r = await exportTo(out, tempDir());
    } finally {
      await setFeedFault(null);
    }
    expect(r.exitCode, r.stderr).toBe(0);
    const ids = lines(out).slice(1).map(idOfLine);
    expect(ids).toEqual(ref.slice(1).map(idOfLine));
    const summary = JSON.parse(r.stdout).summary;
    // Every page from the second starts `count` rows early.
    const pages = summary.pages;
    expect(summary.repeatedIds).toBe((pages - 1) * count);
    expect(r.stderr).toContain(`skipped ${(pages - 1) * count} repeated ids`);
  });

  it("repeat-ids at the boundary with the previous run: ids of the resumed last page repeated later are skipped", async () => {
    const configDir = tempDir();
    const out = join(tempDir(), "r.csv");
    const first = await exportTo(out, configDir);
    expect(first.exitCode, first.stderr).toBe(0);
    const n = (await feedIds(box.sb)).length;
    const lastStart = Math.floor((n - 1) / LIMIT) * LIMIT;
    await simulate(box.sb, { campaign: campaign.id, claims: 160, redemptions: 150, seed: 12 });
    // The page after the resumed one starts early enough to repeat two ids the previous run wrote.
    const at = lastStart + LIMIT;
    await setFeedFault({ feed: "redemptions", kind: "repeat-ids", at, count: at - n + 2 });
    let r: Awaited<ReturnType<typeof exportTo>>;
    try {
      r = await exportTo(out, configDir);
    } finally {
      await setFeedFault(null);
    }
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).summary.repeatedIds).toBeGreaterThanOrEqual(at - n + 2);
    const ids = lines(out).slice(1).map(idOfLine);
    expect(ids.length).toBe(new Set(ids).size);
    expect(new Set(ids)).toEqual(new Set(await feedIds(box.sb)));
  });

  it("a run past its bound (PARTNER_FEED_MAX_DURATION, on the Context's clock) stops between pages with exit 8; the next run continues", async () => {
    const ref = await reference();
    const out = join(tempDir(), "r.csv");
    const configDir = tempDir();
    // A clock that moves 20 minutes each time it is read: a 1h bound is passed after a few pages.
    let t = Date.parse("2030-01-01T00:00:00Z");
    const now = () => {
      t += 20 * 60_000;
      return new Date(t);
    };
    const clock = { now, sleep: async () => {} };
    const a = box.context({ configDir, clock, env: { PARTNER_FEED_MAX_DURATION: "1h" } });
    const err = await exportRun({ out, pageSize: LIMIT }, a.ctx).catch((e: unknown) => e);
    await a.ctx.close();
    expect(err).toBeInstanceOf(PendingError);
    expect((err as Error).message).toMatch(
      /^Stopped reading the redemption feed after \d+ pages?: the run reached its bound of 1h \(PARTNER_FEED_MAX_DURATION\)/,
    );
    const written = lines(out);
    expect(written.length).toBeLessThan(ref.length);
    expect(written).toEqual(ref.slice(0, written.length));
    const again = await exportTo(out, configDir);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(readFileSync(out, "utf8")).toBe(`${ref.join("\n")}\n`);
  });

  it("a PARTNER_FEED_MAX_DURATION that is not a duration is a usage error before any write", async () => {
    const out = join(tempDir(), "r.csv");
    const r = await box.run(["redemptions", "export", "--out", out], {
      env: { PARTNER_FEED_MAX_DURATION: "soon" },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('PARTNER_FEED_MAX_DURATION="soon" is not a duration');
  });
});
