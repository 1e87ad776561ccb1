import { appendFileSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { redemptionsExportRun as exportRun } from "../../src/commands/redemptions/export.js";
import { CheckpointStore } from "../../src/export/checkpoint.js";
import { intentFor } from "../../src/export/durable-output.js";
import { exitCodeFor } from "../../src/main.js";
import { tempDir } from "../helpers/sandbox.js";
import { feedIds } from "./arrange.js";
import { simulate, useFeedCampaign } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

function csvIds(path: string): string[] {
  const rows = parse(readFileSync(path), { columns: true }) as Record<string, string>[];
  return rows.map((r) => r.id!);
}

describe("redemptions export", () => {
  const box = useSandbox();
  const campaign = useFeedCampaign(box, { claims: 2600, redemptions: 2500, seed: 7 });

  it("a cold export equals the sandbox's full set; a second run writes nothing and succeeds", async () => {
    const dir = tempDir();
    const out = join(dir, "r.csv");
    const configDir = tempDir();
    const a = box.context({ configDir });
    const s1 = await exportRun({ out, pageSize: 700 }, a.ctx);
    await a.ctx.close();
    const all = await feedIds(box.sb);
    const ids = csvIds(out);
    expect(ids.length).toBe(all.length);
    expect(new Set(ids)).toEqual(new Set(all));
    expect(s1.rows).toBe(all.length);
    expect(a.stderr()).toMatch(/Exported \d{1,3}(,\d{3})* new redemptions/);

    const b = box.context({ configDir });
    const s2 = await exportRun({ out }, b.ctx);
    await b.ctx.close();
    expect(s2.rows).toBe(0);
    expect(csvIds(out).length).toBe(all.length);
    expect(b.stderr()).toContain("Exported 0 new redemptions");

    // New redemptions between runs appear exactly once.
    await simulate(box.sb, { campaign: campaign.id, claims: 30, redemptions: 25, seed: 8 });
    const c = box.context({ configDir });
    const s3 = await exportRun({ out }, c.ctx);
    await c.ctx.close();
    expect(s3.rows).toBe(25);
    const after = csvIds(out);
    expect(after.length).toBe(new Set(after).size);
    expect(new Set(after)).toEqual(new Set(await feedIds(box.sb)));
  });

  it("writes identifiers as text and NDJSON lines that are the API's objects", async () => {
    const dir = tempDir();
    const out = join(dir, "r.ndjson");
    const { ctx } = box.context();
    await exportRun({ out, format: "ndjson" }, ctx);
    await ctx.close();
    const lines = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.length).toBe((await feedIds(box.sb)).length);
    expect(typeof lines[0].serializedGs1).toBe("string");
    expect(lines[0].offer.baseGs1).toBe(SEED.offers.oatsUnknownSupply);
    const csvOut = join(dir, "r.csv");
    const c = box.context();
    await exportRun({ out: csvOut }, c.ctx);
    await c.ctx.close();
    const rows = parse(readFileSync(csvOut), { columns: true }) as Record<string, string>[];
    expect(rows[0]!.baseGs1).toBe(SEED.offers.oatsUnknownSupply);
  });

  it("with faults injected (429, 502, 500, resets, stalls) exports every id exactly once", async () => {
    const out = join(tempDir(), "r.csv");
    await box.http("POST", "/faults", {
      control: true,
      body: {
        // 23% of feed requests fail: every kind of fault is met, yet no request fails all 8 attempts by
        // chance (0.23^8, about 1e-5 a request; at 36% it was 3e-4, a flaky test).
        rates: { "429": 0.05, "502": 0.05, "500": 0.05, reset: 0.05, stall: 0.03 },
        stallMs: 300,
        retryAfterSeconds: 0,
        pathPrefix: "/redemptions",
      },
    });
    try {
      const { ctx } = box.context({
        env: { PARTNER_RETRY_BASE_MS: "5", PARTNER_RETRY_DEADLINE_MS: "60000" },
      });
      await exportRun({ out, pageSize: 100 }, ctx);
      await ctx.close();
    } finally {
      await box.http("POST", "/faults", { control: true, body: { rates: {}, pathPrefix: null } });
    }
    const ids = csvIds(out);
    expect(ids.length).toBe(new Set(ids).size);
    expect(new Set(ids)).toEqual(new Set(await feedIds(box.sb)));
  });

  it("a correction produces a change row with the new counting state", async () => {
    const configDir = tempDir();
    const out = join(tempDir(), "r.csv");
    const a = box.context({ configDir });
    await exportRun({ out, corrections: true }, a.ctx);
    await a.ctx.close();
    const before = parse(readFileSync(out), { columns: true }) as Record<string, string>[];
    const target = before.find((r) => r.countingState === "counted" && r.change === "")!;
    await simulate(box.sb, { exclude: [target.id], reason: "duplicate receipt" });
    const b = box.context({ configDir });
    const s = await exportRun({ out, corrections: true }, b.ctx);
    await b.ctx.close();
    expect(s.rows).toBe(0);
    expect(s.corrections).toBe(1);
    const rows = parse(readFileSync(out), { columns: true }) as Record<string, string>[];
    const change = rows.filter((r) => r.id === target.id && r.change === "excluded");
    expect(change).toHaveLength(1);
    expect(change[0]!.countingState).toBe("excluded");
    expect(change[0]!.exclusionReason).toBe("duplicate receipt");
    // Nothing new: no second change row.
    const c = box.context({ configDir });
    const s2 = await exportRun({ out, corrections: true }, c.ctx);
    await c.ctx.close();
    expect(s2.corrections).toBe(0);
  });

  it("refuses --json with rows on stdout and a bad --format (usage errors)", async () => {
    const { ctx } = box.context({ globals: { json: true } });
    await expect(exportRun({}, ctx)).rejects.toSatisfy((e) => exitCodeFor(e) === 2);
    const b = box.context();
    await expect(exportRun({ format: "xml" }, b.ctx)).rejects.toSatisfy((e) => exitCodeFor(e) === 2);
  });

  it("cuts a tail only when it is the start of the write this cursor recorded, and refuses anything else", async () => {
    const configDir = tempDir();
    const out = join(tempDir(), "r.csv");
    const a = box.context({ configDir });
    await exportRun({ out }, a.ctx);
    await a.ctx.close();
    const good = readFileSync(out);
    const store = new CheckpointStore(configDir);
    const dest = { kind: "file", path: realpathSync(out) } as const;
    const main = store.of(dest).find((e) => e.cp.feed === "redemptions")!;
    // What a killed run had recorded it was about to write: 10,000 bytes of rows.
    const pending = Buffer.from("x".repeat(99).concat("\n").repeat(100));
    const recordIntent = () => {
      const cp = store.of(dest).find((e) => e.key === main.key)!.cp;
      return store.save(dest, [
        { key: main.key, cp: { ...cp, file: { ...cp.file!, intent: intentFor(cp.file!.bytes, pending) } } },
      ]);
    };
    const runAgain = async () => {
      const c = box.context({ configDir });
      try {
        return await exportRun({ out }, c.ctx);
      } finally {
        await c.ctx.close();
      }
    };
    // The whole write, and a prefix that ends on a 4 KiB file offset (where the kernel cuts a
    // killed write): both cut, the file back to its committed bytes.
    const toBoundary = Math.ceil((good.length + 1) / 4096) * 4096 - good.length;
    for (const len of [pending.length, toBoundary]) {
      await recordIntent();
      appendFileSync(out, pending.subarray(0, len));
      const s = await runAgain();
      expect(s.repairedBytes).toBe(len);
      expect(readFileSync(out).equals(good)).toBe(true);
    }
    // A tail that ends inside a 4 KiB piece, one with a byte changed, and one longer than the
    // recorded write are not provably that write: refused, the file and the cursor left as they are.
    for (const tail of [
      pending.subarray(0, toBoundary + 10),
      Buffer.concat([pending.subarray(0, toBoundary - 1), Buffer.from("y")]),
      Buffer.concat([pending, Buffer.from("note\n")]),
    ]) {
      await recordIntent();
      const cursorBefore = JSON.stringify(store.of(dest));
      appendFileSync(out, tail);
      const bytes = readFileSync(out);
      const err = await runAgain().catch((e) => e);
      expect(exitCodeFor(err)).toBe(2);
      expect(err.message).toMatch(
        /bytes longer than this cursor left it and the extra bytes were not written by partner-cli/,
      );
      expect(readFileSync(out).equals(bytes)).toBe(true);
      expect(JSON.stringify(store.of(dest))).toBe(cursorBefore);
      writeFileSync(out, good);
    }
  });
});
