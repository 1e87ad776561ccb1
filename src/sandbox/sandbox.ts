// The sandbox's live object: the store, the clock, the event log writer and change notification.
import { SandboxClock } from "./clock.js";
import { newEventId } from "./event-ids.js";
import { type FaultConfig, Faults } from "./faults.js";
import type { EventEnvelope, OrgState, SandboxStore } from "./store.js";

export type EventListener = (state: OrgState, event: EventEnvelope) => void;

/**
 * The engines of a running sandbox, as the handlers use them. server.ts starts each once, with the
 * state loaded (delivery.ts, domain/jobs.ts); a stopped engine removes itself.
 */
export interface Engines {
  /** Webhook delivery: asked to send whatever is due now. */
  delivery?: { pumpSoon(): void } | undefined;
  /** Assignment jobs: takes in a queued job; catches every job up to now on the sandbox clock. */
  jobs?: { schedule(orgId: string, jobId: string): void; catchUp(): void } | undefined;
}

export class Sandbox {
  readonly store: SandboxStore;
  readonly clock: SandboxClock;
  /** Options that change behaviour where the spec leaves room (documented in docs/sandbox.md). */
  readonly options: { strictWebhookUrls: boolean };
  readonly faults: Faults;
  readonly engines: Engines = {};
  private readonly eventListeners = new Set<EventListener>();
  private readonly dirtyListeners = new Set<() => void>();

  constructor(
    store: SandboxStore,
    options: { strictWebhookUrls?: boolean | undefined; faults?: Partial<FaultConfig> | undefined } = {},
  ) {
    this.store = store;
    this.faults = new Faults(options.faults);
    this.clock = new SandboxClock(store.clockOffsetMs);
    this.clock.onAdvance(() => {
      this.store.write(() => {
        this.store.clockOffsetMs = this.clock.offsetMs;
      });
      this.markDirty();
    });
    this.options = { strictWebhookUrls: options.strictWebhookUrls ?? false };
  }

  org(orgId: string): OrgState | undefined {
    return this.store.orgs.get(orgId);
  }

  /**
   * Appends an event to the organization's log (in the open transaction) and tells listeners (the
   * delivery engine).
   */
  emit(
    state: OrgState,
    type: string,
    data: Record<string, unknown>,
    opts: { sample?: boolean; occurredAt?: string } = {},
  ): EventEnvelope {
    const event: EventEnvelope = {
      id: newEventId(this.clock.nowMs()),
      type,
      occurredAt: opts.occurredAt ?? this.clock.iso(),
      organizationId: state.id,
      sample: opts.sample ?? false,
      data,
    };
    if (!event.sample) state.events.append(event);
    for (const l of this.eventListeners) l(state, event);
    this.markDirty();
    return event;
  }

  onEvent(fn: EventListener): () => void {
    this.eventListeners.add(fn);
    return () => this.eventListeners.delete(fn);
  }

  /** Bumped on every change (markDirty): caches of answers key on it. */
  changes = 0;

  markDirty(): void {
    this.changes++;
    for (const l of this.dirtyListeners) l();
  }

  onDirty(fn: () => void): () => void {
    this.dirtyListeners.add(fn);
    return () => this.dirtyListeners.delete(fn);
  }
}
