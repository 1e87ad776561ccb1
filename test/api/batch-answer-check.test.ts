// The batch answer check the roster import uses accepts exactly what zod's loose schema accepts and
// gives the same data, or the same error: on random answers, valid and damaged.
import { describe, expect, it } from "vitest";
import { batchAnswerSchema } from "../../src/api/creators.js";
import { looseCreators } from "../../src/spec/creators.js";
import { prng } from "../../src/sandbox/simulate.js";

/** Seeded (mulberry32), so a failing case can be run again. */
const rng = (seed: number) => prng(seed);

const OUTCOMES = ["added", "updated", "unchanged", "rejected", "renamed"];

function answer(r: () => number, n: number): Record<string, unknown> {
  const rows = Array.from({ length: n }, (_, index) => ({
    index,
    externalId: `cr-${index}`,
    outcome: OUTCOMES[r() < 0.97 ? Math.floor(r() * 4) : 4],
    reasons: r() < 0.9 ? [] : ["email: must be a valid email address"],
  }));
  return { summary: { rows: n, added: n, updated: 0, unchanged: 0, rejected: 0 }, rows };
}

/** One damage of the kinds a server or proxy could send. */
function damage(r: () => number, a: Record<string, unknown>): void {
  const rows = a.rows as Record<string, unknown>[];
  const row = rows[Math.floor(r() * rows.length)];
  const summary = a.summary as Record<string, unknown>;
  const kinds: (() => void)[] = [
    () => {
      if (row) row.index = "0";
    },
    () => {
      if (row) row.index = 1.5;
    },
    () => {
      if (row) delete row.externalId;
    },
    () => {
      if (row) row.reasons = "bad";
    },
    () => {
      if (row) row.reasons = [3];
    },
    () => {
      if (row) row.extra = true;
    },
    () => {
      if (row) row.outcome = 7;
    },
    () => {
      summary.rows = "1";
    },
    () => {
      summary.newCount = 0;
    },
    () => {
      delete summary.rejected;
    },
    () => {
      a.rows = null;
    },
    () => {
      a.note = "x";
    },
    () => {
      a.summary = [];
    },
    () => {
      if (row) rows[rows.indexOf(row)] = null as never;
    },
    () => {
      summary.added = 2 ** 60;
    },
  ];
  kinds[Math.floor(r() * kinds.length)]!();
}

describe("batchAnswerSchema", () => {
  it("agrees with the loose zod schema on valid and damaged answers", () => {
    const r = rng(42);
    let ok = 0;
    let bad = 0;
    for (let k = 0; k < 3000; k++) {
      const a = answer(r, Math.floor(r() * 6));
      if (r() < 0.6) damage(r, a);
      const copy = JSON.parse(JSON.stringify(a));
      const fast = batchAnswerSchema.safeParse(copy);
      const zod = looseCreators.BatchResult.safeParse(JSON.parse(JSON.stringify(a)));
      expect(fast.success, JSON.stringify(a)).toBe(zod.success);
      if (zod.success) {
        ok++;
        expect(fast.data).toEqual(zod.data);
      } else {
        bad++;
        expect(fast.error?.issues).toEqual(zod.error.issues);
      }
    }
    expect(ok).toBeGreaterThan(500);
    expect(bad).toBeGreaterThan(500);
  });

  it("an answer with an unknown outcome word or field is still accepted (through zod)", () => {
    const a = answer(rng(1), 2);
    (a.rows as Record<string, unknown>[])[0]!.outcome = "merged";
    (a.rows as Record<string, unknown>[])[1]!.note = "new field";
    const got = batchAnswerSchema.safeParse(a);
    expect(got.success).toBe(true);
    expect(got.data?.rows[0]?.outcome).toBe("merged");
  });
});
