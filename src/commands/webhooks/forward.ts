// webhooks forward URL: webhook development without a public URL. Follows the organization's event
// log with the shared feed loop (export/feed-loop.ts) from a cursor of its own per forward target
// (a named cursor in the config dir, with its lock), and POSTs each event to URL as the service
// delivers it (src/webhooks/delivery.ts: the same body, headers and signature scheme), signed with a
// session secret kept per service, organization and URL (forward-secret.ts) or read from
// --secret-file. A 2xx acknowledges; a failure is retried on the service's schedule scaled down
// (RETRY_SCALE), waiting on the Context's clock; after the seventh attempt the event is reported
// failed and the forward moves on, as the service does. The cursor is saved after each event handled,
// so a restart resumes after the last acknowledged one and nothing is forwarded twice. Ctrl-C or
// SIGTERM stops it (exit 130).
import { listEvents } from "../../api/events.js";
import { getMe } from "../../api/me.js";
import type { Context } from "../../context.js";
import { CancelledError, UsageError } from "../../errors.js";
import {
  attributesOf,
  checkpointOf,
  lockDestination,
  openCheckpoints,
  positionOf,
} from "../../export/checkpoint.js";
import { type CursorId, cursorKey } from "../../export/cursor-id.js";
import { BY_OCCURRED_AT, type FeedPosition, type FeedStep, runFeed, START } from "../../export/feed-loop.js";
import type { RunLock } from "../../export/run-lock.js";
import { stopSignal } from "../../io/until-stopped.js";
import type { EventEnvelope } from "../../spec/events.js";
import { LIMITS } from "../../spec/limits.js";
import { RETRY_WAITS_MS } from "../../spec/webhooks.js";
import { DELIVERY_TIMEOUT_MS, deliveryHeaders, postDelivery } from "../../webhooks/delivery.js";
import { sessionSecret } from "./forward-secret.js";
import { checkAppUrl, parseEventTypesArg, readSecrets } from "./shared.js";

/** The service's retry waits divided by this for local use: a minute becomes a second. */
export const RETRY_SCALE = 60;

export interface WebhooksForwardOptions {
  url: string;
  events?: string | undefined;
  /** Milliseconds back from now (first run, or a deliberate replay). */
  since?: number | undefined;
  fromNow?: boolean | undefined;
  secretFile?: string | undefined;
  /** Poll interval of the event log, milliseconds. */
  interval?: number | undefined;
}

/** One attempt, as --json prints it. */
interface AttemptLine {
  eventId: string;
  type: string;
  attempt: number;
  status: number | null;
  ms: number;
  outcome: "delivered" | "retrying" | "failed";
  category: string | null;
  retryInMs?: number;
}

interface Forward {
  ctx: Context;
  url: string;
  types: string[] | null;
  secrets: string[];
  signal: AbortSignal;
  save: (pos: FeedPosition) => Promise<void>;
  pos: FeedPosition;
  /** Events older than this (ISO) are passed over (--since). */
  cutoff: string | null;
  counts: { delivered: number; failed: number };
  lastHandled: string | null;
}

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? "" : "s"}`;
const seconds = (ms: number) => (ms < 60_000 ? `${ms / 1000}s` : `${Math.round(ms / 60_000)}m`);

function attemptText(a: AttemptLine, at: Date): string {
  const answer = a.status === null ? "no answer" : `HTTP ${a.status}`;
  const how =
    a.outcome === "delivered"
      ? ""
      : ` ${a.category}${a.outcome === "retrying" ? `; retry in ${seconds(a.retryInMs ?? 0)}` : "; giving up"}`;
  return `${at.toISOString()}  ${a.type}  ${a.eventId}  attempt ${a.attempt}  ${answer}${how} (${a.ms} ms)`;
}

/** POSTs one event until it is acknowledged or the seventh attempt failed. */
async function forwardOne(f: Forward, e: EventEnvelope): Promise<void> {
  const body = Buffer.from(JSON.stringify(e), "utf8");
  for (let attempt = 1; ; attempt++) {
    const started = performance.now();
    // The signature's t is the real wall-clock second of sending: receivers compare it with theirs.
    const headers = deliveryHeaders({
      eventId: e.id,
      eventType: e.type,
      body,
      secrets: f.secrets,
      t: Math.floor(Date.now() / 1000),
    });
    const out = await postDelivery(f.url, headers, body, {
      timeoutMs: DELIVERY_TIMEOUT_MS,
      signal: f.signal,
    });
    if (f.signal.aborted) throw interrupted(f);
    const last = attempt >= LIMITS.deliveryAttempts;
    const wait = Math.round(RETRY_WAITS_MS[attempt - 1]! / RETRY_SCALE);
    const line: AttemptLine = {
      eventId: e.id,
      type: e.type,
      attempt,
      status: out.status,
      ms: Math.round(performance.now() - started),
      outcome: out.category === null ? "delivered" : last ? "failed" : "retrying",
      category: out.category,
      ...(out.category !== null && !last ? { retryInMs: wait } : {}),
    };
    f.ctx.io.out(f.ctx.io.json ? `${JSON.stringify(line)}\n` : `${attemptText(line, f.ctx.clock.now())}\n`);
    if (line.outcome !== "retrying") {
      f.counts[line.outcome]++;
      return;
    }
    await f.ctx.clock.sleep(wait, f.signal);
    if (f.signal.aborted) throw interrupted(f);
  }
}

function interrupted(f: Forward): CancelledError {
  const after = f.lastHandled ? `after event ${f.lastHandled}` : "where it was";
  return new CancelledError(
    `Stopped forwarding to ${f.url}: ${plural(f.counts.delivered, "event")} delivered, ${f.counts.failed} failed; the cursor is saved ${after}.`,
    "Run the same command to continue from there.",
  );
}

/** One page: each event forwarded (or passed over), the cursor saved after each. */
async function handlePage(f: Forward, step: FeedStep<EventEnvelope>, forward: boolean): Promise<void> {
  const from = f.pos;
  const done: string[] = [];
  for (const e of step.fresh) {
    if (f.signal.aborted) throw interrupted(f);
    const wanted = (!f.types || f.types.includes(e.type)) && (!f.cutoff || e.occurredAt >= f.cutoff);
    if (forward && wanted) await forwardOne(f, e);
    done.push(e.id);
    if (forward && wanted) {
      f.lastHandled = e.id;
      await f.save({ cursor: from.cursor, skipIds: [...from.skipIds, ...done] });
    }
  }
  f.pos = step.next;
  await f.save(step.next);
}

/** Reads the log from f.pos to its current end; `forward` false only moves the cursor (--from-now). */
async function pass(f: Forward, forward: boolean): Promise<void> {
  const api = await f.ctx.api();
  const only = f.types?.length === 1 ? f.types[0] : undefined;
  await runFeed<EventEnvelope>({
    read: (after) => listEvents(api, { after, type: only, limit: 1000 }),
    idOf: (e) => e.id,
    order: BY_OCCURRED_AT,
    name: "the event log",
    from: f.pos,
    signal: f.signal,
    interrupted: () => interrupted(f),
    readAhead: false,
    handle: (step) => handlePage(f, step, forward),
  });
}

/** The options checked, before any request. */
async function checkOptions(o: WebhooksForwardOptions) {
  if (!o.url)
    throw new UsageError("webhooks forward needs the URL of your app, e.g. http://localhost:3000/webhooks.");
  const url = checkAppUrl(o.url, "The URL to forward to");
  if (o.since !== undefined && o.fromNow)
    throw new UsageError(
      "Give --since or --from-now, not both.",
      "--since replays a span of the log; --from-now skips to its end.",
    );
  const types = o.events ? [...parseEventTypesArg(o.events)].sort() : null;
  const secrets = o.secretFile ? await readSecrets(o.secretFile) : null;
  return { url, types, secrets };
}

/** Where the run starts, and what it says about it. */
function startOf(f: Forward, o: WebhooksForwardOptions, saved: FeedPosition | undefined) {
  if (o.since !== undefined) {
    f.cutoff = new Date(f.ctx.clock.now().getTime() - o.since).toISOString();
    return { pos: START, skipFirst: false, words: `events since ${f.cutoff}` };
  }
  if (saved && !o.fromNow) return { pos: saved, skipFirst: false, words: "where the last run stopped" };
  return { pos: START, skipFirst: true, words: "now (earlier events are not sent)" };
}

export async function webhooksForwardRun(o: WebhooksForwardOptions, ctx: Context): Promise<void> {
  const args = await checkOptions(o);
  const stop = stopSignal(ctx.signal);
  const id = (organizationId: string): CursorId => ({
    organizationId,
    feed: "events",
    type: args.types?.join(",") ?? null,
    dest: { kind: "named", name: `webhooks forward ${args.url}` },
  });
  let lock: RunLock | undefined;
  try {
    const attributes = attributesOf(await ctx.target());
    const org = (await getMe(await ctx.api())).organization;
    const cid = id(org.id);
    lock = await lockDestination(ctx.configDir(), cid.dest, `The forward to ${args.url}`);
    const checkpoints = await openCheckpoints(ctx.configDir(), await ctx.config());
    const cp = checkpoints.of(cid.dest).find((e) => e.key === cursorKey(cid))?.cp;
    const secret = args.secrets
      ? { secrets: args.secrets, path: o.secretFile!, created: false }
      : await sessionSecret(ctx.configDir(), [attributes.service, org.id, args.url]);
    const f: Forward = {
      ctx,
      url: args.url,
      types: args.types,
      secrets: secret.secrets,
      signal: stop.signal,
      pos: START,
      cutoff: null,
      counts: { delivered: 0, failed: 0 },
      lastHandled: null,
      save: async (pos) => {
        lock?.assertHeld();
        const c = checkpointOf(cid, pos, {
          name: cid.dest.kind === "named" ? cid.dest.name : args.url,
          organizationName: org.name,
          rows: 0,
          attributes,
          now: ctx.clock.now(),
        });
        await checkpoints.save(cid.dest, [{ key: cursorKey(cid), cp: c }]);
      },
    };
    const start = startOf(f, o, cp ? positionOf(cp) : undefined);
    f.pos = start.pos;
    if (start.skipFirst) await pass(f, false);
    ctx.io.err(
      `Ready! Forwarding the events of ${org.name}${args.types ? ` (${args.types.join(", ")})` : ""} to ${args.url}, from ${start.words}.`,
    );
    ctx.io.err(
      args.secrets
        ? `Signing with the secret in ${o.secretFile}.`
        : `Your webhook signing secret is ${secret.secrets[0]} (kept in ${secret.path}${secret.created ? "; new" : ""}). Ctrl-C to stop.`,
    );
    await follow(f, o.interval ?? 2_000);
  } finally {
    stop.dispose();
    await lock?.release().catch(() => {});
  }
}

/** Polls the log until stopped; every pass forwards what is new. */
async function follow(f: Forward, base: number): Promise<never> {
  const max = Math.max(base, Math.min(base * 8, 30_000));
  let interval = base;
  for (;;) {
    const before = f.counts.delivered + f.counts.failed;
    await pass(f, true);
    interval =
      f.counts.delivered + f.counts.failed > before ? base : Math.min(Math.round(interval * 1.5), max);
    await f.ctx.clock.sleep(interval, f.signal);
    if (f.signal.aborted) throw interrupted(f);
  }
}
