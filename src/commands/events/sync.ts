// events sync: the spec's replay loop into the local NDJSON event store that `webhooks listen` also
// writes, so a store fed by both holds every event once. From the saved cursor (per profile,
// organization, store file and --type filter) it reads pages of 1,000, skips samples, appends the
// events the store does not have (fsync), and saves the cursor only after that; it stops after the
// page whose nextCursor is null. Two syncs of one store never run at once (exit 9).
import { resolve } from "node:path";
import { listEvents } from "../../api/events.js";
import { getMe } from "../../api/me.js";
import type { Context } from "../../context.js";
import { CancelledError, UsageError } from "../../errors.js";
import {
  type Checkpoint,
  checkpointKey,
  type FeedPosition,
  loadCheckpoint,
  lockPathFor,
  positionOf,
  profileLabel,
  saveCheckpoints,
} from "../../export/checkpoint.js";
import { takeRunLock } from "../../export/run-lock.js";
import { type EventStore, openEventStore } from "../../webhooks/event-store.js";
import { checkTypeArg } from "../webhooks/shared.js";

export interface SyncOptions {
  type?: string | undefined;
  out?: string | undefined;
  fromStart?: boolean | undefined;
  /** Page size (1..1,000; the spec's loop uses 1,000). */
  limit?: number | undefined;
}

export interface SyncSummary {
  pages: number;
  /** Events written to the store by this run. */
  appended: number;
  /** Events the store already had (delivered by `webhooks listen`, or a repeated last page). */
  duplicates: number;
  samples: number;
  out: string;
  type: string | null;
  cursorBefore: string | null;
  cursorAfter: string | null;
}

export async function syncRun(o: SyncOptions, ctx: Context): Promise<SyncSummary> {
  const type = o.type ? checkTypeArg(o.type) : null;
  if (o.out === "-" || o.out === "")
    throw new UsageError("events sync needs a file for --out (the event store), not stdout.");
  const out = resolve(o.out ?? "events.ndjson");
  const target = await ctx.target();
  const profile = profileLabel(target);
  const lock = await takeRunLock(lockPathFor(ctx, profile, out, "events"), `The event sync into ${out}`);
  let store: EventStore | undefined;
  try {
    const api = await ctx.api();
    const orgId = (await getMe(api)).organization.id;
    const config = await ctx.config();
    const key = checkpointKey(profile, orgId, "events", out, type);
    const saved = await loadCheckpoint(config, key);
    let pos: FeedPosition = o.fromStart ? positionOf(undefined) : positionOf(saved);
    store = await openEventStore(out);
    if (store.repairedBytes)
      ctx.io.err(`Removed ${store.repairedBytes} bytes of an unfinished line at the end of ${out}.`);
    const summary: SyncSummary = {
      pages: 0,
      appended: 0,
      duplicates: 0,
      samples: 0,
      out,
      type,
      cursorBefore: pos.cursor,
      cursorAfter: pos.cursor,
    };
    let total = saved?.rows ?? 0;
    const showProgress = ctx.io.stderrIsTTY;
    for (;;) {
      if (ctx.signal.aborted)
        throw new CancelledError(
          `Interrupted; ${summary.appended} events saved to ${out} and the cursor kept. Run again to continue.`,
        );
      const page = await listEvents(api, {
        after: pos.cursor ?? undefined,
        type: type ?? undefined,
        limit: o.limit ?? 1000,
      });
      summary.pages++;
      const skip = new Set(pos.skipIds);
      const items = [];
      for (const e of page.items) {
        if (e.sample) summary.samples++;
        else if (skip.has(e.id)) summary.duplicates++;
        else items.push({ id: e.id, line: JSON.stringify(e) });
      }
      const r = await store.append(items);
      summary.appended += r.appended.length;
      summary.duplicates += r.duplicates.length;
      total += r.appended.length;
      const handled = page.items.map((e) => e.id).filter((id) => !skip.has(id));
      pos =
        page.nextCursor === null
          ? { cursor: pos.cursor, skipIds: [...pos.skipIds, ...handled] }
          : { cursor: page.nextCursor, skipIds: [] };
      // The store is fsynced (append) before the cursor that covers it is saved.
      const cp: Checkpoint = {
        feed: "events",
        name: out,
        profile,
        organizationId: orgId,
        type,
        cursor: pos.cursor,
        skipIds: pos.skipIds,
        rows: total,
        out,
        updatedAt: new Date().toISOString(),
      };
      await saveCheckpoints(config, [[key, cp]]);
      if (showProgress) ctx.io.stderr.write(`\rSynced ${summary.appended} new events…`);
      if (page.nextCursor === null) break;
    }
    if (showProgress) ctx.io.stderr.write("\r\u001b[K");
    summary.cursorAfter = pos.cursor;
    ctx.io.err(
      `Synced ${summary.appended} new event${summary.appended === 1 ? "" : "s"}${type ? ` (${type})` : ""} into ${out} (${summary.duplicates} already there, ${summary.samples} samples skipped, ${summary.pages} page${summary.pages === 1 ? "" : "s"}).`,
    );
    if (ctx.io.json) ctx.io.outJson({ summary });
    return summary;
  } finally {
    await store?.close().catch(() => {});
    await lock.release().catch(() => {});
  }
}
