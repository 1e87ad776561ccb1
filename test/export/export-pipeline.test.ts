// The export's saves: a block's commit records the intent of the next block when its pages were read
// ahead (at most one write of the config store per page instead of two; pages already read are
// written together as one block), and pages are kept as their rendered rows in reused buffers.
// Every save, combined or not, keeps the rules of the intent record: the committed state is exactly
// what the file holds when it is saved, and each recorded intent is exactly the block written next
// at its offset. A run killed after a combined save, in the middle of
// the next write, is repaired and loses or doubles nothing.
import { readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { afterEach, describe, expect, it, vi } from "vitest";
import { redemptionsExportRun } from "../../src/commands/redemptions/export.js";
import { type Checkpoint, CheckpointStore } from "../../src/export/checkpoint.js";
import { CHUNK, type FileState, intentExplains } from "../../src/export/durable-output.js";
import { csvHeader, renderRows } from "../../src/export/redemption-rows.js";
import { looseRedemptions, type Redemption } from "../../src/spec/redemptions.js";
import { useSandbox } from "../helpers/harness.js";
import { tempDir } from "../helpers/sandbox.js";
import { FEED, makeCampaign, simulate } from "../helpers/fixtures.js";
import { feedIds } from "./arrange.js";
import { until } from "../helpers/wait.js";

interface Save {
  /** The output file's size when the save started. */
  sizeBefore: number;
  /** The redemption cursor's file state as saved. */
  file: FileState;
  /** The cursor file's path and text after the save. */
  cursorFile: string;
  text: string;
}

const s = useSandbox({ seed: "demo" });
let campaign: string;

/** The feed's redemptions in feed order, read with a raw loop and the client's schema. */
async function feedRedemptions(): Promise<Redemption[]> {
  const all: Redemption[] = [];
  let after: string | undefined;
  for (;;) {
    const r = await s.http(
      "GET",
      `/redemptions?limit=1000${after ? `&after=${encodeURIComponent(after)}` : ""}`,
    );
    const page = looseRedemptions.RedemptionFeedPage.parse(r.body);
    all.push(...(page.items as Redemption[]));
    if (page.nextCursor === null || page.items.length === 0) return all;
    after = page.nextCursor;
  }
}

/** Exactly the bytes of the header and every redemption of the feed, in feed order. */
async function wholeFeedCsv(): Promise<Buffer> {
  const rows = (await feedRedemptions()).map((redemption) => ({ redemption }));
  return Buffer.from(csvHeader() + renderRows("csv", rows), "utf8");
}

const csvIds = (bytes: Buffer) =>
  (parse(bytes, { columns: true }) as Record<string, string>[]).map((r) => r.id!);

/** Runs an export of `out`, recording every save of its checkpoints. */
async function recordedRun(configDir: string, out: string, limit: number) {
  const saves: Save[] = [];
  const t = s.context({ configDir });
  // Feed requests in flight (the read-ahead): a save waits until they have landed.
  let inFlight = 0;
  const api = await t.ctx.api();
  const call = api.call.bind(api);
  api.call = (async (spec: Parameters<typeof call>[0]) => {
    inFlight++;
    try {
      return await call(spec);
    } finally {
      inFlight--;
    }
  }) as typeof api.call;
  const real = CheckpointStore.prototype.save;
  vi.spyOn(CheckpointStore.prototype, "save").mockImplementation(async function (
    this: CheckpointStore,
    dest,
    put,
    remove,
  ) {
    // Let the read-ahead land, so that pages are there to be recorded with a save.
    await until(() => inFlight === 0, 30_000, "the read-ahead landed", 1);
    const sizeBefore = statSync(out, { throwIfNoEntry: false })?.size ?? 0;
    const result = await real.call(this, dest, put, remove);
    const cursorFile = this.fileOf(dest);
    const text = readFileSync(cursorFile, "utf8");
    const cp = Object.values(JSON.parse(text).cursors as Record<string, Checkpoint>).find(
      (c) => c.feed === "redemptions",
    );
    if (cp?.file) saves.push({ sizeBefore, file: cp.file, cursorFile, text });
    return result;
  });
  try {
    const summary = await redemptionsExportRun({ out, pageSize: limit }, t.ctx);
    return { summary, saves };
  } finally {
    await t.ctx.close();
    vi.restoreAllMocks();
  }
}

describe("redemptions export: rendered pages, blocks of pages, at most one save per page", () => {
  afterEach(() => vi.restoreAllMocks());

  it("an empty feed gives a file holding the header only, and the cursor saved", async () => {
    const out = join(tempDir(), "empty.csv");
    const t = s.context();
    const summary = await redemptionsExportRun({ out }, t.ctx).finally(() => t.ctx.close());
    expect(summary.rows).toBe(0);
    expect(readFileSync(out, "utf8")).toBe(csvHeader());
  });

  it("records each intent before its write, exactly the bytes written, mostly with the previous page's save", async () => {
    campaign = (await makeCampaign(s.sb, FEED)).id;
    await simulate(s.sb, { campaign, claims: 2100, redemptions: 2000, seed: 21 });
    const configDir = tempDir();
    const out = join(tempDir(), "r.csv");
    const { summary, saves } = await recordedRun(configDir, out, 100);
    const file = readFileSync(out);
    expect(summary.pages).toBeGreaterThanOrEqual(20);
    // Byte for byte the header and every redemption in feed order (pages' buffers are reused).
    expect(file.equals(await wholeFeedCsv())).toBe(true);
    let combined = 0;
    for (const [i, sv] of saves.entries()) {
      // The committed state is what the file holds when it is saved (nothing uncommitted beyond it).
      expect(sv.sizeBefore).toBe(sv.file.bytes);
      const intent = sv.file.intent;
      if (!intent) continue;
      expect(intent.start).toBe(sv.file.bytes);
      // The recorded block is exactly what was written there next.
      const block = file.subarray(intent.start, intent.start + intent.length);
      expect(block.length).toBe(intent.length);
      expect(intentExplains(intent, intent.start, block)).toBe(true);
      // A save that also moved the committed length (a page's commit) carried the next page's intent.
      if (i > 0 && sv.file.bytes > saves[i - 1]!.file.bytes) combined++;
    }
    expect(saves.at(-1)!.file.intent ?? null).toBe(null);
    expect(saves.at(-1)!.file.bytes).toBe(file.length);
    // Blocks: the commits after the header's. Each block's intent is saved on its own before its
    // write, unless the commit before it recorded it (combined): the header's two saves, then one
    // or two per block.
    const blocks = saves.filter((sv, i) => i > 0 && sv.file.bytes > saves[i - 1]!.file.bytes).length - 1;
    expect(combined).toBeGreaterThan(0);
    expect(saves.length).toBe(2 + blocks + (blocks - combined));
    // Pages read ahead are written together: fewer blocks, and fewer saves, than pages.
    expect(blocks).toBeLessThan(summary.pages);
    expect(saves.length).toBeLessThanOrEqual(summary.pages + 2);

    // New rows after the repeated last page: only they are appended, byte for byte in feed order.
    await simulate(s.sb, { campaign, claims: 160, redemptions: 150, seed: 22 });
    const t = s.context({ configDir });
    const again = await redemptionsExportRun({ out, pageSize: 100 }, t.ctx).finally(() => t.ctx.close());
    expect(again.rows).toBe(150);
    expect(readFileSync(out).equals(await wholeFeedCsv())).toBe(true);
  });

  it("a run killed inside a write whose intent a page's save recorded is repaired on the next run: every id once", async () => {
    const configDir = tempDir();
    const out = join(tempDir(), "r.csv");
    const { saves } = await recordedRun(configDir, out, 100);
    const full = readFileSync(out);
    const all = await feedIds(s.sb);
    // Saves that committed a page and recorded the next one's intent.
    const points = saves.filter(
      (sv, i) => i > 0 && sv.file.intent && sv.file.bytes > saves[i - 1]!.file.bytes,
    );
    expect(points.length).toBeGreaterThan(0);
    for (const sv of [points[0]!, points[Math.floor(points.length / 2)]!, points.at(-1)!]) {
      const intent = sv.file.intent!;
      // Where the kernel leaves an interrupted write: on a 4 KiB file offset inside the block, or its end.
      const cut = Math.floor((intent.start + intent.length - 1) / CHUNK) * CHUNK;
      const end = cut > intent.start ? cut : intent.start + intent.length;
      writeFileSync(out, full);
      truncateSync(out, end);
      writeFileSync(sv.cursorFile, sv.text);
      const t = s.context({ configDir });
      const again = await redemptionsExportRun({ out }, t.ctx).finally(() => t.ctx.close());
      expect(again.repairedBytes).toBe(end - intent.start);
      const ids = csvIds(readFileSync(out));
      expect(ids.length).toBe(all.length);
      expect(new Set(ids)).toEqual(new Set(all));
      expect(t.stderr()).toMatch(/Removed [\d,]+ bytes that an interrupted run wrote/);
      expect(readFileSync(out).equals(await wholeFeedCsv())).toBe(true);
    }
  });
});
