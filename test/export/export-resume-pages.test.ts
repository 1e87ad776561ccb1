// The export keeps a feed page's ids only where the feed loop reads them (issue 14: pages waiting in
// the read-ahead hold no ids): a resumed run's first page, whose ids already written are skipped, and
// the page that ends the walk. A resumed first page that is full and followed by more pages, read
// with small pages and a deep read-ahead, still gives every id exactly once, in feed order.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { redemptionsExportRun as exportRun } from "../../src/commands/redemptions/export.js";
import { simulate, useFeedCampaign } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { tempDir } from "../helpers/sandbox.js";
import { feedIds } from "./arrange.js";

const csvIds = (path: string) =>
  (parse(readFileSync(path), { columns: true }) as Record<string, string>[]).map((r) => r.id!);

describe("redemptions export resumed across growing pages", () => {
  const box = useSandbox();
  const campaign = useFeedCampaign(box, { claims: 400, redemptions: 333, seed: 41 });

  it("every id once, in feed order, when the resumed page fills up and more pages follow", async () => {
    const out = join(tempDir(), "r.csv");
    const configDir = tempDir();
    const run = async (limit: number) => {
      const t = box.context({ configDir });
      try {
        return await exportRun({ out, pageSize: limit }, t.ctx);
      } finally {
        await t.ctx.close();
      }
    };
    expect((await run(50)).rows).toBe(333);
    // The saved position is the last page's cursor with its 33 ids to skip; 260 more arrive, so
    // that page now holds 50 (17 new) and five more follow it (the last one of 43).
    await simulate(box.sb, { campaign: campaign.id, claims: 300, redemptions: 260, seed: 42 });
    const second = await run(50);
    expect(second.rows).toBe(260);
    expect(second.pages).toBe(6);
    expect(csvIds(out)).toEqual(await feedIds(box.sb));
    // Nothing new: the repeated last page is skipped whole.
    expect((await run(50)).rows).toBe(0);
    expect(csvIds(out)).toEqual(await feedIds(box.sb));
  });
});
