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

async function drain(f: ReturnType<typeof feed>, from: FeedPosition, readAhead: boolean | number = true) {
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

  it("with a read-ahead depth, delivers every item once across runs and resumes from any saved position", async () => {
    for (const depth of [2, 3, 5]) {
      const f = feed(3);
      let pos: FeedPosition = START;
      const all: string[] = [];
      for (const n of [0, 2, 1, 3, 7, 0, 5, 11]) {
        f.add(n);
        const { got, r } = await drain(f, pos, depth);
        all.push(...got);
        pos = r.position;
      }
      expect(all).toEqual(Array.from({ length: 29 }, (_, i) => `e${i}`));
      const { got, saved } = await drain(f, START, depth);
      expect(got).toEqual(all);
      for (let i = 0; i < saved.length; i++) {
        const rest = await drain(f, saved[i]!, depth);
        expect([...got.slice(0, Math.min(29, (i + 1) * 3)), ...rest.got]).toEqual(all);
      }
    }
  });

  it("with depth 2, reads two pages ahead of a slow handler, and never more", async () => {
    const f = feed(2);
    f.add(12);
    const order: string[] = [];
    const ticks = async (n: number) => {
      for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
    };
    await runFeed({
      read: async (a) => {
        order.push(`read ${a ?? "start"}`);
        return f.read(a);
      },
      idOf: (x) => x,
      from: START,
      readAhead: 2,
      handle: async (s) => {
        order.push(`handle ${s.pageNo}`);
        await ticks(10); // the reads that may start do start meanwhile
        order.push(`handled ${s.pageNo}`);
      },
    });
    expect(order.slice(0, 6)).toEqual([
      "read start",
      "read c2",
      "handle 1",
      "read c4",
      "handled 1",
      "read c6",
    ]);
    // A read starts only while at most one page beyond the one the handler holds (the one after the
    // last handled page) is waiting: it is at most two pages ahead of it.
    for (let i = 0; i < order.length; i++) {
      const m = /^read c(\d+)$/.exec(order[i]!);
      if (!m) continue;
      const page = Number(m[1]) / 2 + 1;
      const held = order.slice(0, i).filter((x) => x.startsWith("handled ")).length + 1;
      expect(page - held).toBeLessThanOrEqual(2);
    }
    expect(order.filter((x) => x.startsWith("read"))).toHaveLength(6);
  });

  it("with depth 2, a failed read is thrown where its page is due, after the pages before it are handled", async () => {
    const f = feed(2);
    f.add(10);
    const reads: (string | undefined)[] = [];
    const handled: number[] = [];
    await expect(
      runFeed({
        read: async (a) => {
          reads.push(a);
          if (a === "c4") throw new Error("503 after retries");
          return f.read(a);
        },
        idOf: (x) => x,
        from: START,
        readAhead: 2,
        handle: async (s) => {
          handled.push(s.pageNo);
        },
      }),
    ).rejects.toThrow("503 after retries");
    expect(handled).toEqual([1, 2]);
    expect(reads).toEqual([undefined, "c2", "c4"]);
  });

  it("with depth 2, an abort stops before the next page is handled; a read that throws at once is thrown in order", async () => {
    const f = feed(2);
    f.add(10);
    const ac = new AbortController();
    const handled: number[] = [];
    await expect(
      runFeed({
        read: f.read,
        idOf: (x) => x,
        from: START,
        readAhead: 2,
        signal: ac.signal,
        interrupted: () => new Error("stopped"),
        handle: async (s) => {
          handled.push(s.pageNo);
          if (s.pageNo === 2) ac.abort();
        },
      }),
    ).rejects.toThrow("stopped");
    expect(handled).toEqual([1, 2]);

    const seen: number[] = [];
    await expect(
      runFeed({
        read: (a) => {
          if (a === "c2") throw new Error("bad cursor");
          return f.read(a);
        },
        idOf: (x) => x,
        from: START,
        readAhead: 2,
        handle: async (s) => {
          seen.push(s.pageNo);
        },
      }),
    ).rejects.toThrow("bad cursor");
    expect(seen).toEqual([1]);
  });

  it("peek gives the next step once its page was read ahead, and handle gets that same step next", async () => {
    const f = feed(3);
    f.add(8);
    // A first run handles pages 1-3 (3 + 3 + 2 items); the last page repeats on the next run.
    const first = await drain(f, START, 2);
    f.add(5);
    const peeked: (string[] | undefined)[] = [];
    const steps: unknown[] = [];
    const handled: unknown[] = [];
    const got: string[] = [];
    await runFeed({
      read: f.read,
      idOf: (x) => x,
      from: first.r.position,
      readAhead: 2,
      handle: async (s) => {
        handled.push(s);
        got.push(...s.fresh);
        for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
        const nx = s.peek?.();
        peeked.push(nx?.fresh);
        if (nx) {
          expect(nx.pageNo).toBe(s.pageNo + 1);
          expect(s.peek?.()).toBe(nx); // the same object each time
          steps.push(nx);
        }
      },
    });
    // Page "c6" repeats e6, e7 (skipped) and brings e8; then e9-e11 and e12.
    expect(got).toEqual(["e8", "e9", "e10", "e11", "e12"]);
    expect(peeked).toEqual([["e9", "e10", "e11"], ["e12"], undefined]);
    expect(handled.slice(1)).toEqual(steps);
    expect(handled[1]).toBe(steps[0]);
    expect(handled[2]).toBe(steps[1]);
  });

  it("peek(2) gives the step after next once both pages were read ahead; handle gets those same steps in turn", async () => {
    const f = feed(2);
    f.add(9);
    const handled: unknown[] = [];
    const seen: Map<number, unknown> = new Map();
    const twoAhead: (string[] | undefined)[] = [];
    await runFeed({
      read: f.read,
      idOf: (x) => x,
      from: START,
      readAhead: 2,
      handle: async (s) => {
        handled.push(s);
        for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
        const two = s.peek?.(2);
        twoAhead.push(two?.fresh);
        if (two) {
          expect(two.pageNo).toBe(s.pageNo + 2);
          expect(s.peek?.(1)?.pageNo).toBe(s.pageNo + 1);
          seen.set(two.pageNo, two);
        }
        expect(s.peek?.(3)).toBeUndefined(); // beyond the read-ahead depth
      },
    });
    // Pages: [e0 e1] [e2 e3] [e4 e5] [e6 e7] [e8]; two ahead of the last two there is nothing.
    expect(twoAhead).toEqual([["e4", "e5"], ["e6", "e7"], ["e8"], undefined, undefined]);
    for (const [pageNo, step] of seen) expect(handled[pageNo - 1]).toBe(step);
  });

  it("peek gives nothing without a read-ahead depth above 1", async () => {
    for (const readAhead of [false, true, 1]) {
      const f = feed(2);
      f.add(6);
      const peeked: unknown[] = [];
      await runFeed({
        read: f.read,
        idOf: (x) => x,
        from: START,
        readAhead,
        handle: async (s) => {
          for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
          peeked.push(s.peek?.());
        },
      });
      expect(peeked).toEqual([undefined, undefined, undefined]);
    }
  });

  it("each step carries the page as read returned it, extra fields included", async () => {
    for (const readAhead of [false, true, 2]) {
      const f = feed(2);
      f.add(5);
      const returned: unknown[] = [];
      const got: unknown[] = [];
      await runFeed({
        read: async (a) => {
          const p = { ...(await f.read(a)), extra: a ?? "start" };
          returned.push(p);
          return p;
        },
        idOf: (x) => x,
        from: START,
        readAhead,
        handle: async (s) => {
          got.push(s.page);
        },
      });
      expect(got).toHaveLength(3);
      for (const [i, p] of got.entries()) expect(p).toMatchObject(returned[i] as object);
      expect(got.map((p) => (p as { extra: string }).extra)).toEqual(["start", "c2", "c4"]);
    }
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
