// The work of one `sync` run, per kind. Every page's rows and the checkpoint that covers them are
// committed in one transaction in the destination (Destination.commit); nothing about the copy's
// position lives in the config store.
//
//   redemptions  the feed from the saved cursor (runFeed), upserted by id; then the correction events
//                (redemption.excluded / redemption.restored, one cursor each) and, for each corrected
//                redemption the copy holds, GET /redemptions/{id} and an upsert of its current state.
//                A corrected redemption the copy does not hold yet arrives later through the feed,
//                which serves current states.
//   events       the event log, one row per event id, samples skipped.
//   creators     the roster sync procedure: updatedSince the start of the last completed read, all pages,
//                upsert; --full (or no earlier read) reads it all. The start is the service's time, never
//                this machine's: the Date header of the read's first answer, or the newest updatedAt
//                read when that is later, less ROSTER_OVERLAP_MS (a machine clock that is fast would
//                otherwise skip changes, one that is slow would read everything again).
//   campaigns, offers   every page, upsert.
//   links        every campaign's share links, upsert.
import { getRedemption, redemptionFeed } from "../api/redemptions.js";
import { listCampaigns } from "../api/campaigns.js";
import { listCreators } from "../api/creators.js";
import { listEvents } from "../api/events.js";
import { listLinks } from "../api/links.js";
import { listOffers } from "../api/offers.js";
import { allPages, type Page } from "../api/paging.js";
import type { ApiClient } from "../api/client.js";
import { ApiError, CancelledError } from "../errors.js";
import {
  BY_OCCURRED_AT,
  BY_RECORDED_AT,
  type FeedDeadline,
  type FeedOrder,
  type FeedPosition,
  runFeed,
  START,
} from "../export/feed-loop.js";
import type { EventEnvelope } from "../spec/events.js";
import type { Redemption } from "../spec/redemptions.js";
import type { Destination, FeedState, TableWrite } from "./destination.js";
import {
  campaignRow,
  creatorRow,
  dayInZone,
  eventRow,
  offerRow,
  type Row,
  redemptionRow,
  shareLinkRow,
} from "./rows.js";

export const KINDS = ["offers", "campaigns", "creators", "links", "redemptions", "events"] as const;
export type Kind = (typeof KINDS)[number];

export const CORRECTION_TYPES = ["redemption.excluded", "redemption.restored"] as const;

/** The sync_state row of each feed or list. */
export const FEEDS = {
  redemptions: "redemptions",
  corrections: (type: string) => `corrections:${type}`,
  events: "events",
  creators: "creators",
  campaigns: "campaigns",
  offers: "offers",
  links: "share_links",
} as const;

/** How far before the start of a roster read (by the service's clock) the next read begins. */
const ROSTER_OVERLAP_MS = 5 * 60_000;

export interface KindSummary {
  /** Items read from the service (repeated ones and samples left out). */
  read: number;
  /** Rows inserted or changed in the destination. */
  changed: number;
  pages: number;
}

export interface SyncerOptions {
  api: ApiClient;
  dest: Destination;
  states: FeedState[];
  timeZone: string;
  fromStart: boolean;
  full: boolean;
  /** Feed page size (1..1,000). */
  limit: number;
  now: () => Date;
  /** The bound of the run's feed reads (feedDeadline), on the Context's clock. */
  deadline?: FeedDeadline | undefined;
  signal: AbortSignal;
  /** Progress and notes (stderr). */
  note: (line: string) => void;
  progress?: ((text: string) => void) | undefined;
}

const blank = (feed: string): FeedState => ({
  feed,
  cursor: null,
  skipIds: [],
  generation: 0,
  items: 0,
  lastSyncedAt: null,
  lastCompletedAt: null,
  since: null,
});

export class Syncer {
  private readonly states = new Map<string, FeedState>();
  readonly summary: Record<string, KindSummary> = {};
  private campaignIds: string[] | undefined;
  private readonly day: (iso: string) => string;

  constructor(private readonly o: SyncerOptions) {
    for (const s of o.states) this.states.set(s.feed, s);
    this.day = dayInZone(o.timeZone);
  }

  private stamp(): string {
    return this.o.now().toISOString();
  }

  private state(feed: string): FeedState {
    return this.states.get(feed) ?? blank(feed);
  }

  private sum(kind: string): KindSummary {
    this.summary[kind] ??= { read: 0, changed: 0, pages: 0 };
    return this.summary[kind];
  }

  private checkAbort(): void {
    if (this.o.signal.aborted) throw this.interrupted();
  }

  private interrupted(): CancelledError {
    return new CancelledError(
      `Interrupted; every page committed so far is in ${this.o.dest.label} with its checkpoint. Run again to continue.`,
    );
  }

  /** Commits writes and the feed's new state in one transaction; returns rows changed per write. */
  private async save(feed: string, writes: TableWrite[], patch: Partial<FeedState>): Promise<number[]> {
    const cur = this.state(feed);
    const next: FeedState = { ...cur, ...patch, lastSyncedAt: this.stamp() };
    const r = await this.o.dest.commit(writes, {
      feed,
      expect: cur.generation,
      cursor: next.cursor,
      skipIds: next.skipIds,
      items: next.items,
      lastSyncedAt: next.lastSyncedAt!,
      lastCompletedAt: next.lastCompletedAt,
      since: next.since,
    });
    this.states.set(feed, { ...next, generation: r.generation });
    return r.changed;
  }

  async run(kinds: readonly Kind[]): Promise<void> {
    for (const k of KINDS) {
      if (!kinds.includes(k)) continue;
      this.checkAbort();
      if (k === "offers") await this.offers();
      else if (k === "campaigns") await this.campaigns();
      else if (k === "creators") await this.creators();
      else if (k === "links") await this.links();
      else if (k === "redemptions") {
        await this.redemptions();
        await this.corrections();
      } else await this.events();
    }
  }

  /** A cursor feed from its saved position (or the start), each page committed with its position. */
  private async feed<T>(
    feed: string,
    kind: string,
    read: (after: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>,
    idOf: (item: T) => string,
    order: FeedOrder<T>,
    toWrites: (fresh: T[]) => Promise<{ writes: TableWrite[]; items: number }>,
  ): Promise<void> {
    const st = this.state(feed);
    const from: FeedPosition = this.o.fromStart ? START : { cursor: st.cursor, skipIds: st.skipIds };
    let items = this.o.fromStart ? 0 : st.items;
    const s = this.sum(kind);
    await runFeed<T>({
      read,
      idOf,
      order,
      name: kind === "redemptions" ? "the redemption feed" : "the event log",
      deadline: this.o.deadline,
      from,
      signal: this.o.signal,
      interrupted: () => this.interrupted(),
      readAhead: true,
      handle: async (step) => {
        const { writes, items: n } = await toWrites(step.fresh);
        items += n;
        const changed = await this.save(feed, writes, {
          cursor: step.next.cursor,
          skipIds: step.next.skipIds,
          items,
          ...(step.last ? { lastCompletedAt: this.stamp() } : {}),
        });
        s.read += n;
        s.pages++;
        s.changed += changed.reduce((a, b) => a + b, 0);
        this.o.progress?.(`${kind}: ${s.read} read`);
      },
    });
  }

  private async redemptions(): Promise<void> {
    const { api, limit } = this.o;
    await this.o.dest.beginLoad("redemptions");
    await this.feed<Redemption>(
      FEEDS.redemptions,
      "redemptions",
      (after) => redemptionFeed(api, { after, limit }),
      (r) => r.id,
      BY_RECORDED_AT,
      async (fresh) => ({
        writes: [
          { table: "redemptions", mode: "upsert", rows: fresh.map((r) => redemptionRow(r, this.day)) },
        ],
        items: fresh.length,
      }),
    );
    await this.o.dest.finishLoad("redemptions");
  }

  private async corrections(): Promise<void> {
    const { api, limit } = this.o;
    for (const type of CORRECTION_TYPES) {
      await this.feed<EventEnvelope>(
        FEEDS.corrections(type),
        "corrections",
        (after) => listEvents(api, { after, type, limit }),
        (e) => e.id,
        BY_OCCURRED_AT,
        async (fresh) => {
          const notices = fresh.filter((e) => !e.sample);
          const ids = [
            ...new Set(
              notices
                .map((e) => (e.data as { redemptionId?: unknown } | null)?.redemptionId)
                .filter((id): id is string => typeof id === "string"),
            ),
          ];
          const held = await this.o.dest.existing("redemptions", ids);
          const rows: Row[] = [];
          const targets = ids.filter((id) => held.has(id));
          for (let i = 0; i < targets.length; i += 4) {
            const got = await Promise.all(
              targets.slice(i, i + 4).map(async (id) => {
                try {
                  return await getRedemption(api, id);
                } catch (err) {
                  if (!(err instanceof ApiError && err.status === 404)) throw err;
                  this.o.note(`Skipped a correction of redemption ${id}: the service no longer finds it.`);
                  return undefined;
                }
              }),
            );
            for (const r of got) if (r) rows.push(redemptionRow(r, this.day));
          }
          return { writes: [{ table: "redemptions", mode: "upsert", rows }], items: notices.length };
        },
      );
    }
  }

  private async events(): Promise<void> {
    const { api, limit } = this.o;
    await this.feed<EventEnvelope>(
      FEEDS.events,
      "events",
      (after) => listEvents(api, { after, limit }),
      (e) => e.id,
      BY_OCCURRED_AT,
      async (fresh) => {
        const rows = fresh.filter((e) => !e.sample).map(eventRow);
        return { writes: [{ table: "events", mode: "insert", rows }], items: rows.length };
      },
    );
  }

  /** Every page of a paged list, each page's rows committed with the list's state; then completion. */
  private async list<T>(
    feed: string,
    kind: string,
    pages: AsyncGenerator<Page<T>>,
    toWrite: (items: T[]) => TableWrite,
    done: () => Partial<FeedState> = () => ({}),
    onPage?: (p: Page<T>) => void,
  ): Promise<void> {
    const s = this.sum(kind);
    for await (const p of pages) {
      this.checkAbort();
      onPage?.(p);
      if (p.items.length) {
        const [changed] = await this.save(feed, [toWrite(p.items)], {});
        s.changed += changed ?? 0;
      }
      s.read += p.items.length;
      s.pages++;
      this.o.progress?.(`${kind}: ${s.read} read`);
    }
    this.checkAbort();
    await this.save(feed, [], { lastCompletedAt: this.stamp(), ...done() });
  }

  private async offers(): Promise<void> {
    const { api } = this.o;
    await this.list(
      FEEDS.offers,
      "offers",
      allPages((page) => listOffers(api, { page, pageSize: 200 })),
      (items) => ({ table: "offers", mode: "upsert", rows: items.map(offerRow) }),
    );
  }

  private async campaigns(): Promise<void> {
    const { api } = this.o;
    const ids: string[] = [];
    await this.list(
      FEEDS.campaigns,
      "campaigns",
      allPages((page) => listCampaigns(api, { page, pageSize: 200 })),
      (items) => ({ table: "campaigns", mode: "upsert", rows: items.map(campaignRow) }),
      undefined,
      (p) => {
        for (const c of p.items) ids.push(c.id);
      },
    );
    this.campaignIds = [...new Set(ids)];
  }

  private async creators(): Promise<void> {
    const { api } = this.o;
    const st = this.state(FEEDS.creators);
    const full = this.o.full || this.o.fromStart || st.since === null;
    const updatedSince = full ? undefined : st.since!;
    // The service's time of this read: its first answer's Date, or the newest updatedAt read if later.
    let serviceMs: number | undefined;
    const seen = (ms: number | undefined) => {
      if (ms !== undefined && !Number.isNaN(ms) && (serviceMs === undefined || ms > serviceMs))
        serviceMs = ms;
    };
    await this.list(
      FEEDS.creators,
      "creators",
      allPages((page) => listCreators(api, { updatedSince, page, pageSize: 200 })),
      (items) => ({ table: "creators", mode: "upsert", rows: items.map(creatorRow) }),
      () => ({
        // Without a Date header or a creator read, the next read starts where this one did.
        since:
          serviceMs === undefined
            ? (updatedSince ?? null)
            : new Date(serviceMs - ROSTER_OVERLAP_MS).toISOString(),
      }),
      (p) => {
        if (p.page === 0) seen(p.serviceDate?.getTime());
        for (const c of p.items) seen(Date.parse(c.updatedAt));
      },
    );
  }

  private async links(): Promise<void> {
    const { api } = this.o;
    let ids = this.campaignIds;
    if (!ids) {
      ids = [];
      for await (const p of allPages((page) => listCampaigns(api, { page, pageSize: 200 })))
        for (const c of p.items) ids.push(c.id);
      ids = [...new Set(ids)];
    }
    const s = this.sum("links");
    for (const id of ids) {
      for await (const p of allPages((page) => listLinks(api, id, { page, pageSize: 200 }))) {
        this.checkAbort();
        if (p.items.length) {
          const [changed] = await this.save(
            FEEDS.links,
            [{ table: "share_links", mode: "upsert", rows: p.items.map(shareLinkRow) }],
            {},
          );
          s.changed += changed ?? 0;
        }
        s.read += p.items.length;
        s.pages++;
        this.o.progress?.(`links: ${s.read} read`);
      }
    }
    this.checkAbort();
    await this.save(FEEDS.links, [], { lastCompletedAt: this.stamp() });
  }
}
