// redemptions export: the cron-safe incremental copy of the redemption feed.
// Guarantees: every row exactly once across runs (the repeated last page is skipped by id), the
// output is fsynced before the cursor that covers it is saved, a run killed at any moment leaves an
// uncommitted tail that the next run cuts off, and two runs of one cursor never export at once (9).
import { resolve } from "node:path";
import { ApiError, CancelledError, UsageError } from "../../errors.js";
import { getMe } from "../../api/me.js";
import { listEvents } from "../../api/events.js";
import { getRedemption, redemptionFeed } from "../../api/redemptions.js";
import type { Context } from "../../context.js";
import {
  type Checkpoint,
  checkpointKey,
  type FeedPosition,
  lockPathFor,
  loadCheckpoint,
  positionOf,
  profileLabel,
  saveCheckpoints,
} from "../../export/checkpoint.js";
import { type DurableOutput, openFileOutput, repairTail, streamOutput } from "../../export/durable-output.js";
import { type Change, csvHeader, type ExportFormat, renderRows } from "../../export/redemption-rows.js";
import { takeRunLock } from "../../export/run-lock.js";
import type { Redemption } from "../../spec/redemptions.js";

export interface ExportOptions {
  out?: string | undefined;
  format?: string | undefined;
  cursor?: string | undefined;
  fromStart?: boolean | undefined;
  corrections?: boolean | undefined;
  /** Page size of feed reads (1..1,000). */
  limit?: number | undefined;
}

export interface ExportSummary {
  rows: number;
  corrections: number;
  pages: number;
  cursor: string;
  cursorBefore: string | null;
  cursorAfter: string | null;
  out: string | null;
  repairedBytes: number;
}

const CORRECTION_TYPES = ["redemption.excluded", "redemption.restored"] as const;

export async function exportRun(o: ExportOptions, ctx: Context): Promise<ExportSummary> {
  const format = (o.format ?? "csv") as ExportFormat;
  if (format !== "csv" && format !== "ndjson")
    throw new UsageError(`--format must be csv or ndjson, not "${o.format}".`);
  const name = o.cursor ?? "default";
  if (!/^[\w.-]{1,64}$/.test(name))
    throw new UsageError("--cursor must be 1-64 letters, digits, dots, dashes or underscores.");
  const toStdout = o.out === undefined || o.out === "-";
  if (ctx.io.json && toStdout) {
    throw new UsageError(
      "--json prints the summary on stdout, which already carries the rows.",
      "Use --out FILE with --json.",
    );
  }
  const outPath = toStdout ? null : resolve(o.out!);

  const target = await ctx.target();
  const profile = profileLabel(target);
  const lock = await takeRunLock(lockPathFor(ctx, profile, name, "redemptions"), `Export cursor "${name}"`);
  let output: DurableOutput | undefined;
  try {
    const api = await ctx.api();
    const orgId = (await getMe(api)).organization.id;
    const store = await ctx.config();
    const feedKey = checkpointKey(profile, orgId, "redemptions", name);
    const corrKeys = CORRECTION_TYPES.map((t) => checkpointKey(profile, orgId, "corrections", name, t));
    const savedFeed = await loadCheckpoint(store, feedKey);

    // A run killed after writing but before saving its cursor left an uncommitted tail: cut it.
    let repairedBytes = 0;
    if (savedFeed?.out && savedFeed.committedBytes !== undefined) {
      repairedBytes = await repairTail(savedFeed.out, savedFeed.committedBytes);
      if (repairedBytes) {
        ctx.io.err(
          `Removed ${repairedBytes} bytes an interrupted run wrote to ${savedFeed.out} after its last saved cursor.`,
        );
      }
    }

    let feedPos: FeedPosition = o.fromStart ? positionOf(undefined) : positionOf(savedFeed);
    const corrPos: FeedPosition[] = [];
    for (const k of corrKeys)
      corrPos.push(o.fromStart ? positionOf(undefined) : positionOf(await loadCheckpoint(store, k)));

    output = outPath ? await openFileOutput(outPath) : streamOutput(ctx.io.stdout);
    let total = savedFeed?.rows ?? 0;
    const cp = (
      pos: FeedPosition,
      feed: Checkpoint["feed"],
      type: string | null,
      rows: number,
      committed: number,
    ): Checkpoint => ({
      feed,
      name,
      profile,
      organizationId: orgId,
      type,
      cursor: pos.cursor,
      skipIds: pos.skipIds,
      rows,
      out: outPath,
      committedBytes: committed,
      updatedAt: new Date().toISOString(),
    });
    const commit = async () => {
      const committed = await output!.commit();
      await saveCheckpoints(store, [
        [feedKey, cp(feedPos, "redemptions", null, total, committed)],
        ...corrKeys.map((k, i): [string, Checkpoint] => [
          k,
          cp(corrPos[i]!, "corrections", CORRECTION_TYPES[i]!, 0, committed),
        ]),
      ]);
    };
    // Record where this run starts before writing anything, so a kill during the first page is repairable.
    if (format === "csv" && output.empty) await output.write(csvHeader());
    await commit();

    const summary: ExportSummary = {
      rows: 0,
      corrections: 0,
      pages: 0,
      cursor: name,
      cursorBefore: feedPos.cursor,
      cursorAfter: feedPos.cursor,
      out: outPath,
      repairedBytes,
    };
    const limit = o.limit ?? 1000;
    const showProgress = ctx.io.stderrIsTTY && !toStdout;
    // The next page is read while the current one is written and fsynced (a read has no side
    // effects, so reading ahead never changes what is saved or when).
    const read = (cursor: string | null) => {
      const p = redemptionFeed(api, { after: cursor ?? undefined, limit });
      p.catch(() => {}); // handled where it is awaited
      return p;
    };
    let pending = read(feedPos.cursor);
    for (;;) {
      if (ctx.signal.aborted)
        throw new CancelledError(
          `Interrupted; ${summary.rows} rows exported and saved. Run again to continue.`,
        );
      const page = await pending;
      if (page.nextCursor !== null) pending = read(page.nextCursor);
      summary.pages++;
      const skip = new Set(feedPos.skipIds);
      const fresh = page.items.filter((r) => !skip.has(r.id));
      await output.write(
        renderRows(
          format,
          fresh.map((redemption) => ({ redemption })),
        ),
      );
      feedPos =
        page.nextCursor === null
          ? { cursor: feedPos.cursor, skipIds: [...feedPos.skipIds, ...fresh.map((r) => r.id)] }
          : { cursor: page.nextCursor, skipIds: [] };
      summary.rows += fresh.length;
      total += fresh.length;
      await commit();
      if (showProgress) ctx.io.stderr.write(`\rExported ${summary.rows} rows…`);
      if (page.nextCursor === null) break;
    }
    if (showProgress) ctx.io.stderr.write("\r\u001b[K");
    summary.cursorAfter = feedPos.cursor;

    if (o.corrections) {
      for (let i = 0; i < CORRECTION_TYPES.length; i++) {
        const type = CORRECTION_TYPES[i]!;
        for (;;) {
          if (ctx.signal.aborted)
            throw new CancelledError(
              `Interrupted; ${summary.rows} rows exported and saved. Run again to continue.`,
            );
          const pos = corrPos[i]!;
          const page = await listEvents(api, { after: pos.cursor ?? undefined, type, limit: 1000 });
          const skip = new Set(pos.skipIds);
          const fresh = page.items.filter((e) => !e.sample && !skip.has(e.id));
          const rows: { redemption: Redemption; change: Change }[] = [];
          // Every correction in the log gets a change row with the redemption's current state, the
          // first run included: a correction racing the feed read is never lost.
          for (const e of fresh) {
            const id = String((e.data as { redemptionId?: unknown }).redemptionId ?? "");
            try {
              const redemption = await getRedemption(api, id);
              rows.push({ redemption, change: { type: e.type, eventId: e.id, occurredAt: e.occurredAt } });
            } catch (err) {
              if (!(err instanceof ApiError && err.status === 404)) throw err;
              ctx.io.err(`Skipped correction ${e.id}: redemption ${id} is no longer readable.`);
            }
          }
          await output.write(renderRows(format, rows));
          corrPos[i] =
            page.nextCursor === null
              ? { cursor: pos.cursor, skipIds: [...pos.skipIds, ...fresh.map((e) => e.id)] }
              : { cursor: page.nextCursor, skipIds: [] };
          summary.corrections += rows.length;
          await commit();
          if (page.nextCursor === null) break;
        }
      }
    }

    const where = outPath ?? "stdout";
    const written = summary.rows + summary.corrections > 0;
    const moved = written ? "saved" : "unchanged";
    ctx.io.err(
      `Exported ${summary.rows} new redemption${summary.rows === 1 ? "" : "s"}${o.corrections ? ` and ${summary.corrections} correction${summary.corrections === 1 ? "" : "s"}` : ""} to ${where}; cursor "${name}" ${moved}.`,
    );
    if (ctx.io.json) ctx.io.outJson({ summary });
    return summary;
  } finally {
    await output?.close().catch(() => {});
    await lock.release().catch(() => {});
  }
}
