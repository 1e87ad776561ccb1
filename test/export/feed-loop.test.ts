// The one resumable-feed loop, without a network: skipping the repeated last page, saving only
// through `handle`, read-ahead, interruption.
import { describe, expect, it } from "vitest";
import type { FeedPage } from "../../src/api/paging.js";
import { advance, type FeedPosition, runFeed, START } from "../../src/export/feed-loop.js";

/** A growing feed of ids "e0".."e<n-1>" in pages of `limit`; cursors are "c<offset>". */
function feed(limit: number) {
  const items: string[] = [];
  const reads: (string | undefined)[] = [];
  const read = async (after: string | undefined): Promise<FeedPage<string>> => {
    reads.push(after);
    const at = after ? Number(after.slice(1)) : 0;
    const page = items.slice(at, at + limit);
    const end = at + page.length >= items.length;
    // The last page hands back the cursor that starts it, so it repeats on the next run.
    return { items: page, nextCursor: end ? null : `c${at + limit}` };
  };
  const add = (n: number) => {
    for (let i = 0; i < n; i++) items.push(`e${items.length}`);
  };
  return { read, add, reads };
}

async function drain(f: ReturnType<typeof feed>, from: FeedPosition, readAhead = true) {
  const got: string[] = [];
  const saved: FeedPosition[] = [];
  const r = await runFeed({
    read: f.read,
    idOf: (x) => x,
    from,
    readAhead,
    handle: async (step) => {
      got.push(...step.fresh);
      saved.push(step.next);
    },
  });
  return { got, saved, r };
}

describe("runFeed", () => {
  it("delivers every item once across runs while the feed grows, last page repeating", async () => {
    const f = feed(3);
    let pos: FeedPosition = START;
    const all: string[] = [];
    for (const n of [0, 2, 1, 3, 7, 0, 5]) {
      f.add(n);
      const { got, r } = await drain(f, pos);
      all.push(...got);
      pos = r.position;
    }
    expect(all).toEqual(Array.from({ length: 18 }, (_, i) => `e${i}`));
  });

  it("positions saved after each page resume exactly (a run stopped after any page)", async () => {
    const f = feed(4);
    f.add(10);
    const pages: string[][] = [];
    const saved: FeedPosition[] = [];
    await runFeed({
      read: f.read,
      idOf: (x) => x,
      from: START,
      handle: async (s) => {
        pages.push(s.fresh);
        saved.push(s.next);
      },
    });
    expect(pages.map((p) => p.length)).toEqual([4, 4, 2]);
    for (let i = 0; i < saved.length; i++) {
      const rest = await drain(f, saved[i]!);
      expect([...pages.slice(0, i + 1).flat(), ...rest.got]).toEqual(
        Array.from({ length: 10 }, (_, k) => `e${k}`),
      );
    }
  });

  it("reads ahead: the next page is requested before the current one is handled", async () => {
    const f = feed(2);
    f.add(6);
    const order: string[] = [];
    await runFeed({
      read: async (a) => {
        order.push(`read ${a ?? "start"}`);
        return f.read(a);
      },
      idOf: (x) => x,
      from: START,
      handle: async (s) => {
        order.push(`handle ${s.pageNo}`);
      },
    });
    expect(order.slice(0, 3)).toEqual(["read start", "read c2", "handle 1"]);
  });

  it("without read-ahead, one read per handled page", async () => {
    const f = feed(2);
    f.add(4);
    const order: string[] = [];
    await runFeed({
      read: async (a) => {
        order.push(`read ${a ?? "start"}`);
        return f.read(a);
      },
      idOf: (x) => x,
      from: START,
      readAhead: false,
      handle: async (s) => {
        order.push(`handle ${s.pageNo}`);
      },
    });
    expect(order).toEqual(["read start", "handle 1", "read c2", "handle 2"]);
  });

  it("an abort stops before the next page is handled, with the caller's error", async () => {
    const f = feed(2);
    f.add(6);
    const ac = new AbortController();
    const handled: number[] = [];
    await expect(
      runFeed({
        read: f.read,
        idOf: (x) => x,
        from: START,
        signal: ac.signal,
        interrupted: () => new Error("stopped"),
        handle: async (s) => {
          handled.push(s.pageNo);
          ac.abort();
        },
      }),
    ).rejects.toThrow("stopped");
    expect(handled).toEqual([1]);
  });

  it("a failing handle stops the loop and nothing later is handled", async () => {
    const f = feed(2);
    f.add(6);
    let calls = 0;
    await expect(
      runFeed({
        read: f.read,
        idOf: (x) => x,
        from: START,
        handle: async () => {
          calls++;
          throw new Error("disk full");
        },
      }),
    ).rejects.toThrow("disk full");
    expect(calls).toBe(1);
  });

  it("advance keeps the cursor and adds the page's ids on the last page", () => {
    expect(advance({ cursor: "c4", skipIds: ["a"] }, ["a", "b"], null)).toEqual({
      cursor: "c4",
      skipIds: ["a", "b"],
    });
    expect(advance({ cursor: "c4", skipIds: ["a"] }, ["a", "b"], "c8")).toEqual({
      cursor: "c8",
      skipIds: [],
    });
  });
});
