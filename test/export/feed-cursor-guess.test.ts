// The export takes each feed page's next cursor off the answer's text, before the page is parsed, so
// that the next request goes out first (issue 14). The guess must be exactly the parsed nextCursor or
// nothing at all; and when a guess is wrong anyway, the feed loop reads on from the parsed cursor.
import { describe, expect, it } from "vitest";
import type { FeedPage } from "../../src/api/paging.js";
import { feedCursorOfText, redemptionFeed } from "../../src/api/redemptions.js";
import { type FeedRead, runFeed, START } from "../../src/export/feed-loop.js";
import { FEED, makeCampaign, simulate } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";

const s = useSandbox({ seed: "demo" });

describe("feedCursorOfText", () => {
  it("gives exactly the parsed nextCursor of every page of a sandbox feed, the last (null) included", async () => {
    const campaign = (await makeCampaign(s.sb, FEED)).id;
    await simulate(s.sb, { campaign, claims: 700, redemptions: 650, seed: 31 });
    let after: string | undefined;
    let pages = 0;
    for (;;) {
      const r = await fetch(
        `${s.url}/api/partner/v1/redemptions?limit=97${after ? `&after=${encodeURIComponent(after)}` : ""}`,
        { headers: { authorization: `Bearer ${s.writeKey}` } },
      );
      const text = await r.text();
      const page = JSON.parse(text) as { items: unknown[]; nextCursor: string | null };
      expect(feedCursorOfText(text)).toBe(page.nextCursor);
      pages++;
      if (page.nextCursor === null) break;
      after = page.nextCursor;
    }
    expect(pages).toBeGreaterThan(5);
  });

  it("agrees with JSON.parse on every text it answers for, and answers nothing when unsure", () => {
    const cases: [string, string | null | undefined][] = [
      ['{"items":[],"nextCursor":"abc"}', "abc"],
      ['{"items":[],"nextCursor":null}', null],
      ['{"items":[] , "nextCursor" : "abc" }\n', "abc"],
      ['{"nextCursor":"abc"}', "abc"],
      // Escapes: the text is not the value; left to the parse.
      ['{"items":[],"nextCursor":"a\\u0062c"}', undefined],
      ['{"items":[],"nextCursor":"a\\"b"}', undefined],
      // Another member last, or a cursor inside a nested object: not the page's cursor.
      ['{"nextCursor":"abc","items":[]}', undefined],
      ['{"items":[{"nextCursor":"x"}]}', undefined],
      ['{"items":[],"other":{"nextCursor":"x"}}', undefined],
      // An empty cursor, a number: left to the parse.
      ['{"items":[],"nextCursor":""}', undefined],
      ['{"items":[],"nextCursor":5}', undefined],
      // Not JSON at all.
      ["<html>nextCursor</html>", undefined],
      ["", undefined],
      // A repeated member: JSON.parse keeps the last one, and so does the guess.
      ['{"nextCursor":"first","items":[],"nextCursor":"second"}', "second"],
      ['{"items":[],"nextCursor":"é/+=~."}', "é/+=~."],
    ];
    for (const [text, want] of cases) {
      expect(feedCursorOfText(text), text).toBe(want);
      if (want !== undefined) expect((JSON.parse(text) as { nextCursor: unknown }).nextCursor).toBe(want);
    }
  });

  it("redemptionFeed tells the cursor before it resolves, the same as the page's", async () => {
    const told: (string | null)[] = [];
    const c = s.client();
    const page = await redemptionFeed(c, { limit: 5 }, (cursor) => told.push(cursor));
    expect(told).toEqual([page.nextCursor]);
    await c.close();
  });
});

/** A feed of ids "e0".."e<n-1>" in pages of `limit`; cursors "c<offset>"; the last page's is null. */
function feed(n: number, limit: number) {
  const reads: (string | undefined)[] = [];
  const page = (after: string | undefined): FeedPage<string> => {
    const at = after ? Number(after.slice(1)) : 0;
    const items = Array.from({ length: Math.max(0, Math.min(limit, n - at)) }, (_, i) => `e${at + i}`);
    return { items, nextCursor: at + limit >= n ? null : `c${at + limit}` };
  };
  return { reads, page };
}

async function drain(read: FeedRead<string>, readAhead = 6) {
  const got: string[] = [];
  const r = await runFeed({
    read,
    idOf: (x) => x,
    from: START,
    readAhead,
    handle: async (step) => {
      got.push(...step.fresh);
    },
  });
  return { got, r };
}

describe("runFeed with cursors told early", () => {
  const all = Array.from({ length: 23 }, (_, i) => `e${i}`);

  it("starts the next read when the cursor is told, before the page has arrived", async () => {
    const f = feed(23, 5);
    const order: string[] = [];
    const { got } = await drain(async (after, onCursor) => {
      order.push(`read ${after ?? "start"}`);
      const p = f.page(after);
      onCursor?.(p.nextCursor);
      await new Promise((r) => setImmediate(r));
      order.push(`arrived ${after ?? "start"}`);
      return p;
    });
    expect(got).toEqual(all);
    // Each read starts before the page before it has arrived.
    expect(order.slice(0, 3)).toEqual(["read start", "read c5", "read c10"]);
    expect(order.filter((x) => x.startsWith("read"))).toHaveLength(5);
  });

  it("a wrong guess is dropped: the feed is read on from the page's own cursor, nothing lost or doubled", async () => {
    const f = feed(23, 5);
    const reads: (string | undefined)[] = [];
    const { got, r } = await drain(async (after, onCursor) => {
      reads.push(after);
      const p = f.page(after);
      // Every second page tells a wrong cursor first (as a text that is not what it parses to would).
      if (reads.length % 2 === 0) onCursor?.("c0");
      else onCursor?.(p.nextCursor);
      await new Promise((r) => setImmediate(r));
      return p;
    });
    expect(got).toEqual(all);
    expect(r.pages).toBe(5);
    // The wrongly started reads happened, and every real page was read from its own cursor.
    for (const c of [undefined, "c5", "c10", "c15", "c20"]) expect(reads).toContain(c);
  });

  it("a guess for a page that ends the walk starts nothing that is handled", async () => {
    const f = feed(10, 5);
    const reads: (string | undefined)[] = [];
    const { got, r } = await drain(async (after, onCursor) => {
      reads.push(after);
      const p = f.page(after);
      onCursor?.(p.nextCursor ?? "c999");
      await new Promise((r) => setImmediate(r));
      return p;
    });
    expect(got).toEqual(all.slice(0, 10));
    expect(r.pages).toBe(2);
    expect(r.position).toEqual({ cursor: "c5", skipIds: all.slice(5, 10) });
  });

  it("a failed read with a guessed successor is thrown where its page is due; later pages are not handled", async () => {
    const f = feed(23, 5);
    const handled: number[] = [];
    await expect(
      runFeed({
        read: async (after, onCursor) => {
          const p = f.page(after);
          onCursor?.(p.nextCursor);
          await new Promise((r) => setImmediate(r));
          if (after === "c10") throw new Error("page c10 does not match the API");
          return p;
        },
        idOf: (x) => x,
        from: START,
        readAhead: 6,
        handle: async (step) => {
          handled.push(step.pageNo);
        },
      }),
    ).rejects.toThrow("page c10 does not match the API");
    expect(handled).toEqual([1, 2]);
  });
});
