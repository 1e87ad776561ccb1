// The webhook delivery engine: queues every stored event for each active endpoint subscribed to its
// type, and POSTs deliveries one at a time per endpoint, signed, with retries on the SANDBOX clock
// (waits 1m, 5m, 30m, 2h, 8h, 24h; seven attempts in total). `sandbox advance` makes retries due.
// The signature's t is the real wall-clock second of sending (receivers compare it with their clock).
// Whatever fell due while no sandbox ran (between two commands of the embedded sandbox) is attempted
// when the sandbox next starts, earliest first; the embedded sandbox settles before it stops (settle).
import type { ClientRequest } from "node:http";
import { LIMITS } from "../spec/limits.js";
import { RETRY_WAITS_MS } from "../spec/webhooks.js";
import {
  DELIVERY_TIMEOUT_MS,
  type DeliveryOutcome as Outcome,
  deliveryHeaders,
  postDelivery,
} from "../webhooks/delivery.js";
import { toIso } from "./clock.js";
import { pruneFinished, queueDelivery as queueDeliveryFor, signingSecrets } from "./domain/webhooks.js";
import type { Sandbox } from "./sandbox.js";
import { copyOf } from "./db.js";
import type { DeliveryRecord, EndpointRecord, EventEnvelope, OrgState } from "./store.js";

/** Receivers must answer within 10 seconds (spec: Receiver rules). */
export const DEFAULT_DELIVERY_TIMEOUT_MS = DELIVERY_TIMEOUT_MS;
/** Environment variable that shortens the receiver timeout (for tests), in milliseconds. */
const TIMEOUT_ENV = "PARTNER_SANDBOX_WEBHOOK_TIMEOUT_MS";
const RETENTION_MS = LIMITS.eventRetentionDays * 86_400_000;
/** Longest a timer sleeps before re-checking what is due. */
const MAX_TIMER_MS = 60_000;
/** How long an embedded sandbox, as its command ends, keeps starting the attempts that are due. */
const SETTLE_MS = 1_000;

/** The engine running for a sandbox (undefined if none was started). */
export function deliveryEngine(sb: Sandbox): DeliveryEngine | undefined {
  const e = sb.engines.delivery;
  return e instanceof DeliveryEngine ? e : undefined;
}

/** Asks the engine to send whatever is due now (after a resume, a URL change, a queued sample). */
export function kickDelivery(sb: Sandbox): void {
  sb.engines.delivery?.pumpSoon();
}

export function timeoutFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[TIMEOUT_ENV];
  const n = raw ? Number(raw) : Number.NaN;
  return Number.isFinite(n) && n > 0 ? n : DEFAULT_DELIVERY_TIMEOUT_MS;
}

class DeliveryEngine {
  /** How long a receiver has to answer before the attempt counts as timed_out. */
  timeoutMs: number;
  private readonly sb: Sandbox;
  private readonly busy = new Set<string>();
  private readonly inflight = new Set<ClientRequest>();
  private readonly unsubscribe: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private soon: NodeJS.Immediate | undefined;
  private stopped = false;
  /** Set by settle: after this wall-clock ms no new attempt starts. */
  private startsUntil = Number.POSITIVE_INFINITY;
  private idleWaiters: (() => void)[] = [];
  private readonly finishedCount = new Map<string, number>();

  constructor(sb: Sandbox, opts: { timeoutMs?: number } = {}) {
    this.sb = sb;
    this.timeoutMs = opts.timeoutMs ?? timeoutFromEnv();
  }

  start(): void {
    this.sb.engines.delivery = this;
    this.unsubscribe.push(this.sb.onEvent((state, event) => this.onEvent(state, event)));
    this.unsubscribe.push(
      this.sb.clock.onAdvance(() => {
        this.pruneEvents();
        this.pump();
      }),
    );
    this.pruneEvents();
    this.pump();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const u of this.unsubscribe) u();
    if (this.timer) clearTimeout(this.timer);
    if (this.soon) clearImmediate(this.soon);
    for (const req of this.inflight) req.destroy();
    this.inflight.clear();
    if (this.sb.engines.delivery === this) this.sb.engines.delivery = undefined;
  }

  /**
   * Before an embedded sandbox stops (its command ends): starts the attempts due now for up to
   * `budgetMs`, then waits for those in flight (each ends within the receiver timeout) so their
   * outcomes are recorded; what is still due is attempted when the sandbox next runs.
   */
  async settle(budgetMs = SETTLE_MS): Promise<void> {
    this.startsUntil = Date.now() + budgetMs;
    this.pump();
    while (this.busy.size > 0) await this.idle();
  }

  /** Resolves when no attempt is in flight (tests). */
  idle(): Promise<void> {
    if (this.busy.size === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /**
   * Resolves once the engine has nothing left to do now: no attempt in flight, none about to start
   * (a pump asked for) and no delivery due on the sandbox clock for an active endpoint. What is due
   * later waits for time to move. Tests await it before asserting that nothing (more) was sent.
   */
  async quiet(): Promise<void> {
    for (;;) {
      // One turn of the event loop: a pump asked for (pumpSoon) runs first.
      await new Promise<void>((r) => setImmediate(r));
      if (this.stopped || Date.now() > this.startsUntil) return;
      if (this.busy.size > 0) await this.idle();
      else if (this.soon || this.dueNow()) this.pump();
      else return;
    }
  }

  /** Whether an active endpoint not busy has a delivery due now on the sandbox clock. */
  private dueNow(): boolean {
    const now = this.sb.clock.nowMs();
    for (const state of this.sb.store.orgs.values()) {
      const a = state.webhooks;
      for (const d of a.deliveries.where("next_attempt_ms", { notNull: true })) {
        if (d.nextAttemptAtMs === null || d.nextAttemptAtMs > now) continue;
        const ep = a.endpoints.get(d.endpointId);
        if (ep?.active && !this.busy.has(ep.id)) return true;
      }
    }
    return false;
  }

  /** The endpoints of each organization, read again only after the endpoints table was written. */
  private readonly endpointCache = new Map<string, { writes: number; list: EndpointRecord[] }>();

  private endpointsOf(state: OrgState): EndpointRecord[] {
    const writes = this.sb.store.sql.writes("webhook_endpoints");
    let c = this.endpointCache.get(state.id);
    if (!c || c.writes !== writes) {
      c = { writes, list: state.webhooks.endpoints.values() };
      this.endpointCache.set(state.id, c);
    }
    return c.list;
  }

  private onEvent(state: OrgState, event: EventEnvelope): void {
    // Samples are queued for their one endpoint by POST /webhooks/{id}/test, never fanned out.
    if (event.sample) return;
    const endpoints = this.endpointsOf(state);
    if (endpoints.length === 0) return;
    // Payloads are as recorded: detach the logged data from the emitter's live objects.
    event.data = structuredClone(event.data);
    const now = this.sb.clock.nowMs();
    let queued = false;
    for (const ep of endpoints) {
      // A paused endpoint does not queue new events; they stay in the log only.
      if (!ep.active || !(ep.eventTypes as string[]).includes(event.type)) continue;
      queueDeliveryFor(state, ep, event, now);
      queued = true;
    }
    if (queued) this.pumpSoon();
  }

  /** Pumps on the next turn of the event loop (batches many events emitted together). */
  pumpSoon(): void {
    if (this.stopped || this.soon) return;
    this.soon = setImmediate(() => {
      this.soon = undefined;
      this.pump();
    });
  }

  /** Starts an attempt for every idle active endpoint with a due delivery; re-arms the timer. */
  pump(): void {
    if (this.stopped || Date.now() > this.startsUntil) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const now = this.sb.clock.nowMs();
    let earliest = Number.POSITIVE_INFINITY;
    for (const state of this.sb.store.orgs.values()) {
      const a = state.webhooks;
      const next = new Map<string, DeliveryRecord>();
      for (const d of a.deliveries.where("next_attempt_ms", { notNull: true })) {
        if (d.nextAttemptAtMs === null) continue;
        const ep = a.endpoints.get(d.endpointId);
        if (!ep?.active || this.busy.has(ep.id)) continue;
        if (d.nextAttemptAtMs > now) {
          earliest = Math.min(earliest, d.nextAttemptAtMs);
          continue;
        }
        const cur = next.get(ep.id);
        if (
          !cur ||
          d.nextAttemptAtMs < (cur.nextAttemptAtMs ?? 0) ||
          (d.nextAttemptAtMs === cur.nextAttemptAtMs && d.seq < cur.seq)
        )
          next.set(ep.id, d);
      }
      for (const [epId, d] of next) void this.attempt(state, a.endpoints.get(epId)!, d);
    }
    if (earliest < Number.POSITIVE_INFINITY) {
      const wait = Math.min(Math.max(earliest - now, 0), MAX_TIMER_MS);
      this.timer = setTimeout(() => this.pump(), wait);
      this.timer.unref();
    }
  }

  private async attempt(state: OrgState, ep: EndpointRecord, d: DeliveryRecord): Promise<void> {
    this.busy.add(ep.id);
    const startMs = this.sb.clock.nowMs();
    const body = Buffer.from(d.body, "utf8");
    const headers = deliveryHeaders({
      eventId: d.eventId,
      eventType: d.eventType,
      body,
      secrets: signingSecrets(ep, startMs),
      t: Math.floor(Date.now() / 1000),
    });
    let outcome: Outcome;
    try {
      outcome = await postDelivery(ep.url, headers, body, {
        timeoutMs: this.timeoutMs,
        onRequest: (req) => {
          this.inflight.add(req);
          req.on("close", () => this.inflight.delete(req));
        },
      });
    } catch {
      outcome = { status: null, category: "unreachable" };
    }
    this.busy.delete(ep.id);
    if (this.stopped) return;
    // Deleted endpoint (its deliveries were removed) or a sandbox reset: nothing to record.
    this.sb.store.write(() => {
      const a = state.webhooks;
      const dNow = a.deliveries.get(d.id);
      const epNow = a.endpoints.get(ep.id);
      if (!dNow || !epNow || this.sb.store.orgs.get(state.id) !== state) return;
      const [dCopy, epCopy] = [copyOf(dNow), copyOf(epNow)];
      this.record(state, epCopy, dCopy, startMs, outcome);
      a.deliveries.set(dCopy.id, dCopy);
      if (JSON.stringify(epCopy) !== JSON.stringify(epNow)) a.endpoints.set(epCopy.id, epCopy);
    });
    this.sb.markDirty();
    if (this.busy.size === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
    this.pump();
  }

  private record(state: OrgState, ep: EndpointRecord, d: DeliveryRecord, startMs: number, o: Outcome) {
    const endMs = Math.max(this.sb.clock.nowMs(), startMs);
    d.attempts += 1;
    d.lastAttemptAt = toIso(startMs);
    d.lastStatusCode = o.status;
    if (o.category === null) {
      d.deliveredAt = toIso(endMs);
      d.nextAttemptAtMs = null;
      d.lastFailureCategory = null;
      ep.failingSince = null;
      ep.lastDeliveredAt = toIso(endMs);
    } else {
      d.lastFailureCategory = o.category;
      ep.failingSince ??= toIso(startMs);
      if (d.attempts >= LIMITS.deliveryAttempts) {
        d.failedAt = toIso(endMs);
        d.nextAttemptAtMs = null;
      } else {
        d.nextAttemptAtMs = endMs + RETRY_WAITS_MS[d.attempts - 1]!;
      }
    }
    // Pruning scans the area: do it once every 25 finished deliveries of an endpoint.
    if (d.nextAttemptAtMs === null) {
      const n = (this.finishedCount.get(ep.id) ?? 0) + 1;
      this.finishedCount.set(ep.id, n % 25);
      if (n >= 25) pruneFinished(state, ep.id);
    }
  }

  /** Drops events older than the 30-day retention on the sandbox clock. */
  pruneEvents(): void {
    const cutoff = toIso(Math.ceil((this.sb.clock.nowMs() - RETENTION_MS) / 1000) * 1000);
    this.sb.store.write(() => {
      for (const state of this.sb.store.orgs.values()) state.events.pruneBefore(cutoff);
    });
  }
}

/** Starts the delivery engine of a sandbox (server.ts, once per start). */
export function startDelivery(sb: Sandbox): DeliveryEngine {
  const engine = new DeliveryEngine(sb);
  engine.start();
  return engine;
}
