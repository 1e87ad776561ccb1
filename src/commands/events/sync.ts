// events sync: the spec's replay loop into the local NDJSON event store that `webhooks listen` also
// writes, so a store fed by both holds every event once. From the saved cursor (per service,
// organization, store file and --type filter) it reads pages of 1,000, skips samples, appends the
// events the store does not have (fsync), and saves the cursor, with the store's committed content,
// only after that; it stops after the page whose nextCursor is null.
//
// Before any request and any write it checks the store: the content every sync checkpoint of this
// file committed must still be there, byte for byte, and everything after it must be complete
// envelope lines (what `webhooks listen` appends meanwhile), or a partial last line, which is cut as
// a writer killed mid-line left it. A re-saved, re-encoded, shortened or replaced store, a line that
// is not an envelope, another organization's events or an export file are refused (exit 2) and the
// file is left as it is. A store no checkpoint knows (written by `webhooks listen` alone) is accepted
// when every line is an envelope: events are de-duplicated by id, so nothing is doubled.
// Two syncs into one store never run at once (exit 9).
import { open } from "node:fs/promises";
import { resolve } from "node:path";
import { listEvents } from "../../api/events.js";
import { getMe } from "../../api/me.js";
import type { Context } from "../../context.js";
import { CancelledError, OutputChangedError, UsageError } from "../../errors.js";
import {
  checkpointOf,
  type CursorId,
  cursorLockPath,
  describeCursor,
  findCheckpoint,
  legacyLabel,
  orgLabel,
  positionOf,
  saveCheckpoints,
  serviceOf,
  takeOutputLock,
  writersOf,
} from "../../export/checkpoint.js";
import { describeChange, resolveOutPath, sameContent } from "../../export/durable-output.js";
import { type FeedPosition, runFeed, START } from "../../export/feed-loop.js";
import { type RunLock, takeRunLock } from "../../export/run-lock.js";
import type { EventEnvelope } from "../../spec/events.js";
import { openEventStore } from "../../webhooks/event-store.js";
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

const n = (x: number) => x.toLocaleString("en-US");
const WAYS_ON =
  "Nothing was written and the sync's cursor is unchanged. Sync into a new file: --out NEW_FILE (it continues where the cursor stopped; add --from-start to copy the whole 30-day log into it).";

export async function syncRun(o: SyncOptions, ctx: Context): Promise<SyncSummary> {
  const type = o.type ? checkTypeArg(o.type) : null;
  if (o.out === "-" || o.out === "")
    throw new UsageError("events sync needs a file for --out (the event store), not stdout.");
  const rawOut = resolve(o.out ?? "events.ndjson");
  const out = await resolveOutPath(rawOut);
  const target = await ctx.target();
  const service = serviceOf(target);
  const label = legacyLabel(target);
  const configDir = ctx.configDir();
  const locks: RunLock[] = [
    await takeRunLock(cursorLockPath(configDir, service, "events", out), `The event sync into ${out}`),
  ];
  let store: Awaited<ReturnType<typeof openEventStore>> | undefined;
  try {
    locks.push(await takeOutputLock(configDir, out));
    const assertHeld = () => {
      for (const l of locks) l.assertHeld();
    };
    const refuse = (what: string) =>
      new OutputChangedError(`Refusing to sync into ${out}: ${what}.`, WAYS_ON);
    const config = await ctx.config();

    // ---- before any request: is the store what the checkpoints that wrote it committed? ----
    const data = await config.read();
    const writers = [...writersOf(data, out), ...(rawOut !== out ? writersOf(data, rawOut) : [])];
    const exporter = writers.find((w) => w.cp.feed !== "events");
    if (exporter) throw refuse(`it is the output of ${describeCursor(exporter.cp)}, not an event store`);
    const claims = writers.filter((w) => w.cp.file && w.cp.file.bytes > 0);
    const exists = await open(out, "r").then(
      (fh) => fh.close().then(() => true),
      () => false,
    );
    if (!exists && claims.length > 0)
      throw refuse(
        `it no longer exists, though ${describeCursor(claims[0]!.cp)} committed ${n(claims[0]!.cp.file!.bytes)} bytes to it`,
      );
    const openStore = () =>
      openEventStore(out, {
        deferRepair: true,
        snapshotAt: claims.map((c) => c.cp.file!.bytes),
        checkFrom: Math.max(0, ...claims.map((c) => c.cp.file!.bytes)),
      });
    if (exists) {
      store = await openStore();
      const { scan } = store;
      for (const c of claims) {
        const f = c.cp.file!;
        const snap = scan.snapshots.get(f.bytes);
        if (f.bytes <= scan.size && snap && sameContent(snap, f)) continue;
        const replaced = f.dev !== String(scan.stat.dev) || f.ino !== String(scan.stat.ino);
        const fh = await open(out, "r");
        try {
          const reasons = await describeChange(fh, scan.size, replaced, f.bytes, false);
          throw refuse(`it ${reasons.join(" and ")} (compared with what ${describeCursor(c.cp)} committed)`);
        } finally {
          await fh.close();
        }
      }
      if (scan.badLine)
        throw refuse(
          `line ${n(scan.badLine.line)} (at byte ${n(scan.badLine.offset)}) ${scan.badLine.reason}; an event store holds only event envelopes, one per line, as events sync and webhooks listen write them`,
        );
      if (scan.partial && scan.partial[0] !== 0x7b)
        throw refuse(
          `it ends with ${n(scan.partial.length)} bytes that are neither a complete line nor the start of an event envelope`,
        );
    }

    const api = await ctx.api();
    const org = (await getMe(api)).organization;
    const otherOrg = claims.find((c) => c.cp.organizationId !== org.id);
    if (otherOrg)
      throw refuse(
        `it holds the events of organization ${orgLabel(otherOrg.cp)}, and this run is for ${org.name} (${org.id})`,
      );
    const foreignEvents = [...(store?.scan.organizationIds ?? [])].find((id) => id !== org.id);
    if (foreignEvents)
      throw refuse(
        `it holds events of organization ${foreignEvents}, and this run is for ${org.name} (${org.id})`,
      );

    const id: CursorId = { service, organizationId: org.id, feed: "events", name: out, type };
    const found = findCheckpoint(await config.read(), id, label, rawOut);
    if (found.adoptFrom)
      ctx.io.err(
        `The sync cursor of ${out} was saved by an older partner-cli as "${label}"; it is kept per service and organization now (${service}, ${org.name}) and continues where it stopped.`,
      );
    let pos: FeedPosition = o.fromStart ? START : positionOf(found.cp);
    store ??= await openStore();
    const st = store;
    if (st.scan.partial) {
      assertHeld();
      const cut = await st.repairPartial();
      if (cut) ctx.io.err(`Removed ${n(cut)} bytes of an unfinished line at the end of ${out}.`);
    }
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
    let total = o.fromStart ? 0 : (found.cp?.rows ?? 0);
    const showProgress = ctx.io.stderrIsTTY;
    await runFeed<EventEnvelope>({
      read: (after) => listEvents(api, { after, type: type ?? undefined, limit: o.limit ?? 1000 }),
      idOf: (e) => e.id,
      from: pos,
      signal: ctx.signal,
      interrupted: () =>
        new CancelledError(
          `Interrupted; ${summary.appended} events saved to ${out} and the cursor kept. Run again to continue.`,
        ),
      handle: async (s) => {
        summary.pages++;
        summary.duplicates += s.repeated;
        const items = [];
        for (const e of s.fresh) {
          if (e.sample) summary.samples++;
          else items.push({ id: e.id, line: JSON.stringify(e) });
        }
        assertHeld();
        const r = await st.append(items);
        summary.appended += r.appended.length;
        summary.duplicates += r.duplicates.length;
        total += r.appended.length;
        pos = s.next;
        // The store is fsynced (append) before the cursor that covers it is saved.
        assertHeld();
        await saveCheckpoints(
          config,
          [
            [
              found.key,
              checkpointOf(id, pos, {
                organizationName: org.name,
                rows: total,
                out,
                file: st.state(),
                now: ctx.clock.now(),
              }),
            ],
          ],
          found.adoptFrom ? [found.adoptFrom] : [],
        );
        if (showProgress) ctx.io.stderr.write(`\rSynced ${summary.appended} new events…`);
      },
    });
    if (showProgress) ctx.io.stderr.write("\r\u001b[K");
    summary.cursorAfter = pos.cursor;
    ctx.io.err(
      `Synced ${summary.appended} new event${summary.appended === 1 ? "" : "s"}${type ? ` (${type})` : ""} into ${out} (${summary.duplicates} already there, ${summary.samples} samples skipped, ${summary.pages} page${summary.pages === 1 ? "" : "s"}).`,
    );
    if (ctx.io.json) ctx.io.outJson({ summary });
    return summary;
  } finally {
    await store?.close().catch(() => {});
    for (const l of locks.reverse()) await l.release().catch(() => {});
  }
}
