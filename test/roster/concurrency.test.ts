// roster import --concurrency: several batches in flight, outcomes still taken in file order; a 429
// slows the import down without losing or repeating rows; Ctrl-C with batches in flight reports
// exactly which were saved and which are uncertain.
import { readFileSync } from "node:fs";
import { beforeEach, describe, expect, it } from "vitest";
import { type ImportOptions, rosterImportRun } from "../../src/commands/roster/import.js";
import { creatorCount, errorText, writeTemp } from "./harness.js";
import { type FnResult, runFn } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";

const s = useSandbox();
beforeEach(async () => {
  await s.http("POST", "/reset", { control: true, body: {} });
  s.sb.faults.set({ next: [], rates: {}, latencyMs: 0, pathPrefix: undefined, method: undefined });
});

const SEEDED = 12;

/** 95 rows: every 7th has a bad email, every 11th repeats an earlier externalId. */
function roster(prefix: string): { text: string; valid: number } {
  const rows: string[] = [];
  let valid = 0;
  for (let i = 0; i < 95; i++) {
    if (i % 7 === 3) rows.push(`${prefix}-${i},Name ${i},not-an-email`);
    else if (i % 11 === 5) rows.push(`${prefix}-${i - 5},Again ${i},`);
    else {
      rows.push(`${prefix}-${i},Name ${i},n${i}@example.com`);
      valid++;
    }
  }
  return { text: `externalId,name,email\n${rows.join("\n")}\n`, valid };
}

/** Runs an import, counting how many batch requests were in flight at once at most. */
async function importCounting(file: string, opts: ImportOptions): Promise<FnResult & { most: number }> {
  let now = 0;
  let most = 0;
  const r = await runFn(s.sb, (ctx) => rosterImportRun({ file: file, ...opts }, ctx), {
    globals: { json: true },
    intercept: async (spec, call) => {
      if (spec.path !== "/creators/batch") return call(spec);
      most = Math.max(most, ++now);
      try {
        return await call(spec);
      } finally {
        now--;
      }
    },
  });
  return { ...r, most };
}

const rejectLines = (stderr: string) => stderr.split("\n").filter((l) => /^line \d+/.test(l));

describe("roster import --concurrency", () => {
  it("with 429 answers: every valid row stored once, rejects in file order, same report as --concurrency 1", async () => {
    const { text, valid } = roster("cc");
    const file = writeTemp(text);
    const rejects1 = writeTemp("", "rejects-1.csv");
    const one = await importCounting(file, { batchSize: 10, concurrency: 1, rejects: rejects1 });
    expect(one.most).toBe(1);
    expect(await creatorCount(s.sb)).toBe(SEEDED + valid);

    await s.http("POST", "/reset", { control: true, body: {} });
    s.sb.faults.set({
      next: ["429", "429", "429", "429", "429"],
      retryAfterSeconds: 0,
      pathPrefix: "/creators/batch",
    });
    const rejects4 = writeTemp("", "rejects-4.csv");
    const four = await importCounting(file, { batchSize: 10, concurrency: 4, rejects: rejects4 });
    expect(s.sb.faults.config.next).toEqual([]); // the 429s were all answered
    expect(four.most).toBeGreaterThan(1);
    expect(four.most).toBeLessThanOrEqual(4);

    expect(four.exitCode).toBe(one.exitCode);
    expect(four.exitCode).toBe(3); // some rows rejected: a partial failure
    expect(await creatorCount(s.sb)).toBe(SEEDED + valid);
    expect(four.json().summary).toEqual(one.json().summary);
    expect(four.json().summary).toMatchObject({ added: valid, unchanged: 0, updated: 0 });
    expect(four.json().batches).toEqual(one.json().batches);
    expect(four.json().rejected).toEqual(one.json().rejected);
    const lines = four.json().rejected.map((r: { line: number }) => r.line);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
    expect(lines.length).toBeGreaterThan(10);
    expect(readFileSync(rejects4, "utf8")).toBe(readFileSync(rejects1, "utf8"));
    expect(rejectLines(four.stderr)).toEqual(rejectLines(one.stderr));
  });

  it("Ctrl-C with several batches in flight: answered batches counted, the others reported uncertain (exit 130)", async () => {
    const rows = Array.from({ length: 30 }, (_, i) => `fl-${i},Name ${i}`);
    const file = writeTemp(`externalId,name\n${rows.join("\n")}\n`);
    const ac = new AbortController();
    let calls = 0;
    let third!: () => void;
    const thirdSent = new Promise<void>((r) => {
      third = r;
    });
    const aborted = new Promise<void>((r) => ac.signal.addEventListener("abort", () => r()));
    const r = await runFn(
      s.sb,
      (ctx) => rosterImportRun({ file: file, batchSize: 10, concurrency: 4 }, ctx),
      {
        globals: { json: true },
        signal: ac.signal,
        intercept: async (spec, call) => {
          const n = ++calls;
          if (n === 1) {
            // The first batch is answered once all three are in flight; Ctrl-C comes with its answer.
            await thirdSent;
            const res = await call(spec);
            ac.abort();
            return res;
          }
          if (n === 3) third();
          await aborted;
          return call(spec);
        },
      },
    );
    expect(calls).toBe(3);
    expect(r.exitCode).toBe(130);
    expect(errorText(r)).toMatch(
      "Interrupted while 2 batches were being sent (batch 2, lines 12-21; batch 3, lines 22-31); those may or may not have been saved. Besides those, 1 batch (10 rows, lines 2-11) had already been sent and saved.",
    );
    expect(r.json()).toMatchObject({ complete: false, interrupted: true, summary: { added: 10 } });
    expect(r.json().batches).toEqual([
      { firstLine: 2, lastLine: 11, rows: 10, added: 10, updated: 0, unchanged: 0, rejected: 0 },
    ]);
    expect(await creatorCount(s.sb)).toBe(SEEDED + 10);
  });

  it("refuses a --concurrency outside 1..16 before reading or sending anything (exit 2)", async () => {
    const file = writeTemp("externalId,name\nz-1,Zed\n");
    for (const concurrency of [0, 17, 2.5]) {
      const r = await runFn(s.sb, (ctx) => rosterImportRun({ file: file, concurrency }, ctx));
      expect(r.exitCode).toBe(2);
      expect(errorText(r)).toMatch("--concurrency must be a whole number from 1 to 16.");
    }
    expect(await creatorCount(s.sb)).toBe(SEEDED);
  });
});
