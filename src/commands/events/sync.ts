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
import { feedPageSize } from "../shared/list.js";
import { CancelledError, OutputChangedError, UsageError } from "../../errors.js";
import type { ApiClient } from "../../api/client.js";
import { machineFailure } from "../../io/machine-failure.js";
import { startStatusText } from "../../io/progress.js";
import {
  type Attributes,
  attributesOf,
  type Checkpoint,
  type CheckpointStore,
  checkpointOf,
  describeCursor,
  type Entry,
  lockDestination,
  openCheckpoints,
  orgLabel,
  positionOf,
} from "../../export/checkpoint.js";
import { type CursorId, cursorKey, type Destination } from "../../export/cursor-id.js";
import { describeChange, resolveOutPath, sameContent } from "../../export/durable-output.js";
import { BY_OCCURRED_AT, type FeedPosition, feedDeadline, runFeed, START } from "../../export/feed-loop.js";
import type { RunLock } from "../../export/run-lock.js";
import type { EventEnvelope } from "../../spec/events.js";
import { type OpenedEventStore as EventStore, openEventStore } from "../../webhooks/event-store.js";
import { checkTypeArg } from "../webhooks/shared.js";

export interface EventsSyncOptions {
  type?: string | undefined;
  out?: string | undefined;
  fromStart?: boolean | undefined;
  /** Items per feed request (1..1,000; the spec's loop uses 1,000): --page-size. */
  pageSize?: number | undefined;
  /** The old name of --page-size (hidden; a notice says so). */
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

/** The options checked: the store's path (real) and the type filter. */
interface SyncArgs {
  type: string | null;
  out: string;
  fromStart: boolean;
  limit: number;
}

/** What the run holds and gives back whatever happens. */
interface Held {
  locks: RunLock[];
  store?: EventStore | undefined;
}

/** The explicit state the sync's steps share. */
interface SyncState {
  ctx: Context;
  args: SyncArgs;
  checkpoints: CheckpointStore;
  attributes: Attributes;
  api: ApiClient;
  org: { id: string; name: string };
  id: CursorId;
  store: EventStore;
  pos: FeedPosition;
  /** Events the cursor has written into the store, this run's included. */
  total: number;
  summary: SyncSummary;
  assertHeld(): void;
}

const refuse = (out: string, what: string) =>
  new OutputChangedError(`Refusing to sync into ${out}: ${what}.`, WAYS_ON);

async function checkArgs(o: EventsSyncOptions, io: Context["io"]): Promise<SyncArgs> {
  const type = o.type ? checkTypeArg(o.type) : null;
  if (o.out === "-" || o.out === "")
    throw new UsageError("events sync needs a file for --out (the event store), not stdout.");
  const out = await resolveOutPath(resolve(o.out ?? "events.ndjson"));
  return { type, out, fromStart: o.fromStart === true, limit: feedPageSize(o, io) };
}

const destOf = (args: SyncArgs): Destination => ({ kind: "file", path: args.out });

/** The checkpoints that committed content to the store (none may be an export's). */
function storeClaims(checkpoints: CheckpointStore, args: SyncArgs): Entry[] {
  const { out } = args;
  const writers = checkpoints.of(destOf(args));
  const exporter = writers.find((w) => w.cp.feed !== "events");
  if (exporter) throw refuse(out, `it is the output of ${describeCursor(exporter.cp)}, not an event store`);
  return writers.filter((w) => w.cp.file && w.cp.file.bytes > 0);
}

/**
 * Before any request: the store must hold what every checkpoint that wrote it committed, then
 * complete envelope lines (and at most the start of one). Opens the store when it exists.
 */
async function checkStore(args: SyncArgs, claims: Entry[], held: Held): Promise<void> {
  const { out } = args;
  const exists = await open(out, "r").then(
    (fh) => fh.close().then(() => true),
    () => false,
  );
  if (!exists && claims.length > 0)
    throw refuse(
      out,
      `it no longer exists, though ${describeCursor(claims[0]!.cp)} committed ${n(claims[0]!.cp.file!.bytes)} bytes to it`,
    );
  if (!exists) return;
  held.store = await openStore(out, claims);
  const { scan } = held.store;
  for (const c of claims) {
    const f = c.cp.file!;
    const snap = scan.snapshots.get(f.bytes);
    if (f.bytes <= scan.size && snap && sameContent(snap, f)) continue;
    const replaced = f.dev !== String(scan.stat.dev) || f.ino !== String(scan.stat.ino);
    const fh = await open(out, "r");
    try {
      const reasons = await describeChange(fh, scan.size, replaced, f.bytes, false);
      throw refuse(out, `it ${reasons.join(" and ")} (compared with what ${describeCursor(c.cp)} committed)`);
    } finally {
      await fh.close();
    }
  }
  if (scan.badLine)
    throw refuse(
      out,
      `line ${n(scan.badLine.line)} (at byte ${n(scan.badLine.offset)}) ${scan.badLine.reason}; an event store holds only event envelopes, one per line, as events sync and webhooks listen write them`,
    );
  if (scan.partial && scan.partial[0] !== 0x7b)
    throw refuse(
      out,
      `it ends with ${n(scan.partial.length)} bytes that are neither a complete line nor the start of an event envelope`,
    );
}

function openStore(out: string, claims: Entry[]): Promise<EventStore> {
  return openEventStore(out, {
    deferRepair: true,
    snapshotAt: claims.map((c) => c.cp.file!.bytes),
    checkFrom: Math.max(0, ...claims.map((c) => c.cp.file!.bytes)),
  });
}

/** After GET /me: neither a checkpoint nor an event of the store may be another organization's. */
function checkOrganization(
  out: string,
  org: { id: string; name: string },
  claims: Entry[],
  store: EventStore | undefined,
): void {
  const otherOrg = claims.find((c) => c.cp.organizationId !== org.id);
  if (otherOrg)
    throw refuse(
      out,
      `it holds the events of organization ${orgLabel(otherOrg.cp)}, and this run is for ${org.name} (${org.id})`,
    );
  const foreignEvents = [...(store?.scan.organizationIds ?? [])].find((id) => id !== org.id);
  if (foreignEvents)
    throw refuse(
      out,
      `it holds events of organization ${foreignEvents}, and this run is for ${org.name} (${org.id})`,
    );
}

/** The cursor, the store opened, and a partial last line cut. */
async function openCursor(
  ctx: Context,
  args: SyncArgs,
  org: { id: string; name: string },
  claims: Entry[],
  held: Held,
  assertHeld: () => void,
): Promise<{ id: CursorId; cp: Checkpoint | undefined; store: EventStore; pos: FeedPosition }> {
  const id: CursorId = { organizationId: org.id, feed: "events", type: args.type, dest: destOf(args) };
  const key = cursorKey(id);
  const cp = claims.find((c) => c.key === key)?.cp;
  held.store ??= await openStore(args.out, claims);
  const store = held.store;
  if (store.scan.partial) {
    assertHeld();
    const cut = await store.repairPartial();
    if (cut) ctx.io.err(`Removed ${n(cut)} bytes of an unfinished line at the end of ${args.out}.`);
  }
  return { id, cp, store, pos: args.fromStart ? START : positionOf(cp) };
}

/** The log's pages: new events appended (fsynced), then the cursor saved with the store's state. */
async function syncPages(s: SyncState): Promise<void> {
  const { ctx, args, summary } = s;
  const status = startStatusText(ctx.io);
  try {
    await runFeed<EventEnvelope>({
      read: (after) => listEvents(s.api, { after, type: args.type ?? undefined, limit: args.limit }),
      idOf: (e) => e.id,
      order: BY_OCCURRED_AT,
      name: "the event log",
      deadline: feedDeadline(ctx),
      from: s.pos,
      signal: ctx.signal,
      interrupted: () =>
        new CancelledError(
          `Interrupted; ${summary.appended} events saved to ${args.out} and the cursor kept. Run again to continue.`,
        ),
      handle: async (step) => {
        summary.pages++;
        summary.duplicates += step.repeated;
        const items = [];
        for (const e of step.fresh) {
          if (e.sample) summary.samples++;
          else items.push({ id: e.id, line: JSON.stringify(e) });
        }
        s.assertHeld();
        const r = await s.store.append(items);
        summary.appended += r.appended.length;
        summary.duplicates += r.duplicates.length;
        s.total += r.appended.length;
        s.pos = step.next;
        // The store is fsynced (append) before the cursor that covers it is saved.
        await saveCursor(s);
        status.show(`Synced ${summary.appended} new events…`);
      },
    });
  } finally {
    status.stop();
  }
}

async function saveCursor(s: SyncState): Promise<void> {
  s.assertHeld();
  const cp = checkpointOf(s.id, s.pos, {
    name: s.args.out,
    organizationName: s.org.name,
    rows: s.total,
    attributes: s.attributes,
    file: s.store.state(),
    now: s.ctx.clock.now(),
  });
  await s.checkpoints.save(s.id.dest, [{ key: cursorKey(s.id), cp }]);
}

function report(s: SyncState): void {
  const { summary, args, ctx } = s;
  ctx.io.err(
    `Synced ${summary.appended} new event${summary.appended === 1 ? "" : "s"}${args.type ? ` (${args.type})` : ""} into ${args.out} (${summary.duplicates} already there, ${summary.samples} samples skipped, ${summary.pages} page${summary.pages === 1 ? "" : "s"}).`,
  );
  if (ctx.io.json) ctx.io.outJson({ summary });
}

/** checkArgs → locks → checkStore (no request yet) → GET /me, checkOrganization → openCursor → syncPages → report. */
export async function eventsSyncRun(o: EventsSyncOptions, ctx: Context): Promise<SyncSummary> {
  const args = await checkArgs(o, ctx.io);
  const attributes = attributesOf(await ctx.target());
  const held: Held = { locks: [] };
  const assertHeld = () => {
    for (const l of held.locks) l.assertHeld();
  };
  try {
    held.locks.push(await lockDestination(ctx.configDir(), destOf(args), `The event sync into ${args.out}`));
    const checkpoints = await openCheckpoints(ctx.configDir(), await ctx.config());
    const claims = storeClaims(checkpoints, args);
    await checkStore(args, claims, held);
    const api = await ctx.api();
    const org = (await getMe(api)).organization;
    checkOrganization(args.out, org, claims, held.store);
    const opened = await openCursor(ctx, args, org, claims, held, assertHeld);
    const summary: SyncSummary = {
      pages: 0,
      appended: 0,
      duplicates: 0,
      samples: 0,
      out: args.out,
      type: args.type,
      cursorBefore: opened.pos.cursor,
      cursorAfter: opened.pos.cursor,
    };
    const total = args.fromStart ? 0 : (opened.cp?.rows ?? 0);
    const s: SyncState = {
      ctx,
      args,
      checkpoints,
      attributes,
      api,
      org,
      ...opened,
      total,
      summary,
      assertHeld,
    };
    await syncPages(s);
    summary.cursorAfter = s.pos.cursor;
    report(s);
    return summary;
  } catch (err) {
    throw (
      machineFailure(err, {
        kept: `${args.out} holds every event up to the saved cursor, which is where it was; a failed write left nothing half-written.`,
      }) ?? err
    );
  } finally {
    await held.store?.close().catch(() => {});
    for (const l of held.locks.reverse()) await l.release().catch(() => {});
  }
}
