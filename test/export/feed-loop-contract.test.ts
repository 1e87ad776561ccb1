// The feed loop's contract checks without a network, at every read-ahead depth: what ends a walk
// normally, what stops it before the bad page (and what `handle` and `peek` get of it), ids repeated
// within a run, pages that never move on, and the deadline.
import { describe, expect, it } from "vitest";
import type { FeedPage } from "../../src/api/paging.js";
import { FeedContractError, PendingError } from "../../src/errors.js";
import {
  type FeedRead,
  type FeedStep,
  NO_PROGRESS_PAGES,
  orderBy,
  runFeed,
  START,
} from "../../src/export/feed-loop.js";

interface Item {
  id: string;
  t: string;
}
const item = (n: number): Item => ({ id: `e${n}`, t: new Date(Date.UTC(2030, 0, 1, 0, 0, n)).toISOString() });

/** Pages by cursor: "start" for the first read. */
function pages(map: Record<string, FeedPage<Item>>): FeedRead<Item> {
  return async (after) => {
    const p = map[after ?? "start"];
    if (!p) throw new Error(`no page at ${after}`);
    return p;
  };
}
const page = (from: number, to: number, nextCursor: string | null): FeedPage<Item> => ({
  items: Array.from({ length: to - from }, (_, i) => item(from + i)),
  nextCursor,
});

async function walk(read: FeedRead<Item>, readAhead: boolean | number) {
  const handled: FeedStep<Item>[] = [];
  const peeked: (FeedStep<Item> | undefined)[] = [];
  let error: unknown;
  const r = await runFeed<Item>({
    read,
    idOf: (x) => x.id,
    order: orderBy("t", (x) => x.t),
    from: START,
    readAhead,
    name: "the test feed",
    handle: async (s) => {
      handled.push(s);
      peeked.push(s.peek?.(1), s.peek?.(2));
    },
  }).catch((e: unknown) => {
    error = e;
  });
  return { r, handled, peeked, error, ids: handled.flatMap((s) => s.fresh.map((x) => x.id)) };
}

describe.each([false, true, 6])("the feed's contract (read-ahead %s)", (readAhead) => {
  it("an empty last page, or an empty page that hands back its own cursor, ends the walk normally", async () => {
    const a = await walk(pages({ start: page(0, 3, "c3"), c3: page(3, 3, null) }), readAhead);
    expect(a.error).toBeUndefined();
    expect(a.ids).toEqual(["e0", "e1", "e2"]);
    const b = await walk(pages({ start: page(0, 3, "c3"), c3: page(3, 3, "c3") }), readAhead);
    expect(b.error).toBeUndefined();
    expect(b.ids).toEqual(["e0", "e1", "e2"]);
  });

  it("a loop, a cycle (also of empty pages) and time going backwards stop before the bad page; peek never shows it", async () => {
    const loop = await walk(pages({ start: page(0, 2, "c2"), c2: page(2, 4, "c2") }), readAhead);
    expect(loop.error).toBeInstanceOf(FeedContractError);
    expect((loop.error as Error).message).toContain('at page 2 of this run (read with cursor "c2")');
    expect(loop.ids).toEqual(["e0", "e1"]);

    const cycle = await walk(
      pages({ start: page(0, 2, "c2"), c2: page(2, 4, "c4"), c4: page(4, 6, "c2") }),
      readAhead,
    );
    expect((cycle.error as Error).message).toContain(
      'page 3 of this run (read with cursor "c4"): its nextCursor "c2" is the cursor page 2',
    );
    expect(cycle.ids).toEqual(["e0", "e1", "e2", "e3"]);
    expect(cycle.peeked.every((s) => s === undefined || s.violation === undefined)).toBe(true);

    const empty = await walk(
      pages({ start: page(0, 2, "c2"), c2: page(2, 2, "c3"), c3: page(2, 2, "c2") }),
      readAhead,
    );
    expect((empty.error as Error).message).toContain("page 3 of this run");

    const back = await walk(
      pages({
        start: page(0, 2, "c2"),
        c2: page(2, 4, "c4"),
        c4: { items: [{ id: "x", t: item(1).t }, item(9)], nextCursor: null },
      }),
      readAhead,
    );
    expect((back.error as Error).message).toContain("t goes backwards");
    expect(back.ids).toEqual(["e0", "e1", "e2", "e3"]);
  });

  it("ids repeated across pages and within one page are handed over once and counted", async () => {
    const r = await walk(
      pages({
        start: page(0, 3, "c3"),
        c3: { items: [item(2), item(3), item(3), item(4)], nextCursor: "c5" },
        c5: { items: [item(0), item(5)], nextCursor: null },
      }),
      readAhead,
    );
    expect(r.error).toBeUndefined();
    expect(r.ids).toEqual(["e0", "e1", "e2", "e3", "e4", "e5"]);
    expect(r.handled.map((s) => s.duplicates)).toEqual([0, 2, 1]);
  });

  it(`${NO_PROGRESS_PAGES} pages in a row that bring nothing new stop the walk`, async () => {
    const read: FeedRead<Item> = async (after) => {
      const n = after ? Number(after.slice(1)) : 0;
      return { items: n === 0 ? [item(0)] : [], nextCursor: `c${n + 1}` };
    };
    const r = await walk(read, readAhead);
    expect(r.error).toBeInstanceOf(FeedContractError);
    expect((r.error as Error).message).toContain(`page ${NO_PROGRESS_PAGES + 1} of this run`);
    expect(r.ids).toEqual(["e0"]);
  });
});

it("the deadline stops the walk between pages (PendingError), on the clock it is given", async () => {
  let now = 0;
  const read: FeedRead<Item> = async (after) => {
    const n = after ? Number(after.slice(1)) : 0;
    return page(n, n + 1, `c${n + 1}`);
  };
  const handled: string[] = [];
  const err = await runFeed<Item>({
    read,
    idOf: (x) => x.id,
    from: START,
    deadline: { now: () => new Date(now), at: 30, label: "30ms" },
    handle: async (s) => {
      handled.push(...s.fresh.map((x) => x.id));
      now += 10;
    },
  }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(PendingError);
  expect((err as Error).message).toBe(
    "Stopped reading the feed after 4 pages: the run reached its bound of 30ms. Everything handled so far is saved.",
  );
  expect(handled).toEqual(["e0", "e1", "e2", "e3"]);
});
