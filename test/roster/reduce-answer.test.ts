// A batch answer is reduced as it arrives (send.ts reduceAnswer): the counts, the rows not
// accepted by index (in index order, whatever order the service sent them in), and the first index
// outside the batch, which the import then reports as a ProtocolError.
import { describe, expect, it } from "vitest";
import { reduceAnswer } from "../../src/commands/roster/import/send.js";

const row = (index: number, outcome: string, reasons: string[] = []) => ({
  index,
  externalId: `e${index}`,
  outcome,
  reasons,
});
const answer = (rows: ReturnType<typeof row>[]) => ({
  summary: { rows: rows.length, added: 0, updated: 0, unchanged: 0, rejected: 0 },
  rows,
});

describe("reduceAnswer", () => {
  it("counts outcomes (an unknown word counts as updated) and keeps the rejected rows in index order", () => {
    const got = reduceAnswer(
      answer([
        row(3, "rejected", ["email: must be a valid email address"]),
        row(0, "added"),
        row(2, "merged"),
        row(1, "unchanged"),
        row(4, "added", ["name: odd"]),
      ]) as never,
      5,
    );
    expect(got).toEqual({
      outcomes: 5,
      counts: { added: 1, updated: 1, unchanged: 1, rejected: 2 },
      rejected: [
        { index: 3, reasons: ["email: must be a valid email address"] },
        { index: 4, reasons: ["name: odd"] },
      ],
      badIndex: undefined,
    });
  });

  it("names the first index outside the batch, and the number of outcomes", () => {
    expect(reduceAnswer(answer([row(0, "added"), row(7, "added")]) as never, 2).badIndex).toBe(7);
    expect(reduceAnswer(answer([row(-1, "added"), row(0, "added")]) as never, 2).badIndex).toBe(-1);
    expect(reduceAnswer(answer([row(0, "added")]) as never, 2).outcomes).toBe(1);
  });
});
