// Paging math and the feed walk, without a network (the HTTP walks are in client.test.ts).
import { describe, expect, it } from "vitest";
import { allItems, allPages, type FeedPage, feedPages, type Page } from "../../src/api/paging.js";
import { ProtocolError } from "../../src/errors.js";

/** A list of n numbers served in pages the way the spec describes (pageSize clamped to 200). */
function server(n: number) {
  const calls: number[] = [];
  const fetchPage = async (page: number, size = 50): Promise<Page<number>> => {
    calls.push(page);
    const pageSize = Math.min(size, 200);
    const items = Array.from({ length: n }, (_, i) => i).slice(page * pageSize, (page + 1) * pageSize);
    return { items, page, pageSize, totalCount: n };
  };
  return { calls, fetchPage };
}

async function collect<T>(g: AsyncGenerator<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of g) out.push(x);
  return out;
}

describe("allPages / allItems", () => {
  it.each([
    [0, 1],
    [1, 1],
    [50, 1],
    [51, 2],
    [100, 2],
    [1234, 25],
  ])("%i items take %i requests", async (n, requests) => {
    const s = server(n);
    const items = await collect(allItems((p) => s.fetchPage(p)));
    expect(items).toEqual(Array.from({ length: n }, (_, i) => i));
    expect(s.calls).toEqual(Array.from({ length: requests }, (_, i) => i));
  });

  it("follows the page size the service answers with", async () => {
    const s = server(1000);
    const pages = await collect(allPages((p) => s.fetchPage(p, 1000)));
    expect(pages.map((p) => p.items.length)).toEqual([200, 200, 200, 200, 200]);
  });

  it("starts from a given page", async () => {
    const s = server(120);
    const items = await collect(allItems((p) => s.fetchPage(p), 1));
    expect(items[0]).toBe(50);
    expect(items).toHaveLength(70);
  });

  it("stops at an empty page even if totalCount promised more (items removed meanwhile)", async () => {
    const calls: number[] = [];
    const pages = await collect(
      allPages(async (page) => {
        calls.push(page);
        return { items: page === 0 ? [1, 2] : [], page, pageSize: 2, totalCount: 10 };
      }),
    );
    expect(pages).toHaveLength(2);
    expect(calls).toEqual([0, 1]);
  });

  it("a service that ignores `page` is a ProtocolError, not an endless loop", async () => {
    const g = allItems(async () => ({ items: [1], page: 0, pageSize: 1, totalCount: 5 }));
    await expect(collect(g)).rejects.toBeInstanceOf(ProtocolError);
  });

  it("is lazy: nothing is fetched before the first item is asked for, and stopping early stops fetching", async () => {
    const s = server(500);
    const g = allItems((p) => s.fetchPage(p));
    expect(s.calls).toEqual([]);
    for await (const x of g) if (x === 60) break;
    expect(s.calls).toEqual([0, 1]);
  });
});

describe("feedPages", () => {
  /** A feed of n events in pages of `limit`, cursors opaque ("c<position>"). */
  function feed(n: number, limit: number) {
    const calls: (string | undefined)[] = [];
    const fetchPage = async (after: string | undefined): Promise<FeedPage<number>> => {
      calls.push(after);
      const start = after ? Number(after.slice(1)) : 0;
      const items = Array.from({ length: n }, (_, i) => i).slice(start, start + limit);
      const end = start + items.length;
      return { items, nextCursor: end >= n ? null : `c${end}` };
    };
    return { calls, fetchPage };
  }

  it("walks until nextCursor is null, handing each page the cursor that produced it", async () => {
    const f = feed(25, 10);
    const pages = await collect(feedPages(f.fetchPage));
    expect(pages.map((p) => [p.after, p.items.length, p.nextCursor])).toEqual([
      [undefined, 10, "c10"],
      ["c10", 10, "c20"],
      ["c20", 5, null],
    ]);
    expect(pages.flatMap((p) => p.items)).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  it("resumes from a saved cursor", async () => {
    const f = feed(25, 10);
    const pages = await collect(feedPages(f.fetchPage, "c20"));
    expect(f.calls).toEqual(["c20"]);
    expect(pages[0]!.items).toEqual([20, 21, 22, 23, 24]);
  });

  it("an empty feed is one empty page", async () => {
    const pages = await collect(feedPages(feed(0, 10).fetchPage));
    expect(pages).toEqual([{ items: [], nextCursor: null, after: undefined }]);
  });

  it("an empty page that returns the same cursor ends the walk", async () => {
    let n = 0;
    const pages = await collect(
      feedPages(async (after) => {
        n++;
        return { items: [], nextCursor: after ?? "c0" };
      }, "c0"),
    );
    expect(pages).toHaveLength(1);
    expect(n).toBe(1);
  });

  it("the consumer sees a page before the next one is fetched (cursor saved only after handling)", async () => {
    const f = feed(30, 10);
    const log: string[] = [];
    for await (const p of feedPages(async (a) => {
      log.push(`fetch ${a}`);
      return f.fetchPage(a);
    })) {
      log.push(`handle ${p.after} -> save ${p.nextCursor}`);
    }
    expect(log).toEqual([
      "fetch undefined",
      "handle undefined -> save c10",
      "fetch c10",
      "handle c10 -> save c20",
      "fetch c20",
      "handle c20 -> save null",
    ]);
  });
});
