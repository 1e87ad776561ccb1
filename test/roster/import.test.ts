import { readFileSync } from "node:fs";
import { parse } from "csv-parse/sync";
import { beforeEach, describe, expect, it } from "vitest";
import { type ImportOptions, rosterImportRun } from "../../src/commands/roster/import.js";
import { creator, creatorCount, errorText, writeTemp } from "./harness.js";
import { runFn } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { until } from "../helpers/wait.js";

const s = useSandbox();
beforeEach(async () => {
  await s.http("POST", "/reset", { control: true, body: {} });
  s.sb.faults.set({ next: [], rates: {}, latencyMs: 0, pathPrefix: undefined, method: undefined });
});

const SEEDED = 12;
const imp = (
  content: string | Buffer,
  opts: ImportOptions = {},
  o: { json?: boolean; tty?: boolean } = {},
) => {
  const file = writeTemp(content);
  return runFn(s.sb, (ctx) => rosterImportRun({ file: file, ...opts }, ctx), {
    globals: { json: o.json ?? true },
    tty: o.tty,
  });
};

describe("roster import", () => {
  it("reads BOM, CRLF, quoted commas/quotes/newlines, unicode and blank lines; reports lines", async () => {
    const text =
      "\ufeffexternalId,name,email,handle,active\r\n" +
      'u-1,"Évans, Priya",priya@example.com,@priya,yes\r\n' +
      "\r\n" +
      'u-2,"Maria ""Mia"" López",,,\r\n' +
      'u-3,"Wei\r\nZhang",,,\r\n' + // a name on two lines: rejected (one line only), reported at its start line
      "u-4,Søren 张伟,not-an-email,,\r\n" +
      ",,,,\r\n" +
      "u-5,Zoë,zoe@example.nl,,0\r\n";
    const r = await imp(text);
    expect(r.exitCode).toBe(3);
    expect(r.json().summary).toEqual({ rows: 5, added: 3, updated: 0, unchanged: 0, rejected: 2 });
    expect(r.json().rejected).toEqual([
      { line: 5, externalId: "u-3", reasons: ["name: must be one line"] },
      { line: 7, externalId: "u-4", reasons: ["email: must be a valid email address"] },
    ]);
    expect((await creator(s.sb, "u-1")).name).toBe("Évans, Priya");
    expect((await creator(s.sb, "u-2")).name).toBe('Maria "Mia" López');
    expect((await creator(s.sb, "u-5")).active).toBe(false);
    expect(r.stderr).toMatch(/line 5 \(u-3\): name: must be one line/);
    expect(r.stderr).toMatch(/5 rows in 1 batch: 3 added, 0 updated, 0 unchanged, 2 rejected/);
    expect(errorText(r)).toMatch(/2 of 5 rows were rejected/);
  });

  it("exit 0 when every row is accepted; a second run reports every row unchanged", async () => {
    const text = "externalId,name\nz-1,Ann\nz-2,Bob\n";
    const first = await imp(text);
    expect(first.exitCode).toBe(0);
    expect(first.json().summary).toEqual({ rows: 2, added: 2, updated: 0, unchanged: 0, rejected: 0 });
    const second = await imp(text);
    expect(second.exitCode).toBe(0);
    expect(second.json().summary).toEqual({ rows: 2, added: 0, updated: 0, unchanged: 2, rejected: 0 });
    expect(second.json().complete).toBe(true);
  });

  it("header case and whitespace; --column mapping; ignored columns are named", async () => {
    const text = " EXTERNALID ,  Name ,Work Email,notes\nh-1,Ann,ann@example.com,hello\n";
    const r = await imp(text, { column: ["email=work email"] });
    expect(r.exitCode).toBe(0);
    expect(await creator(s.sb, "h-1")).toMatchObject({ name: "Ann", email: "ann@example.com" });
    expect(r.stderr).toMatch(/Ignoring 1 column not used by the roster: notes/);
  });

  it("a bad --column FIELD is a usage error before anything is read", async () => {
    const r = await imp("externalId\nx\n", { column: ["phone=Phone"] });
    expect(r.exitCode).toBe(2);
    expect(errorText(r)).toMatch(/"phone" is not a roster field/);
  });

  it("a missing externalId column is exit 2 naming the headers found; nothing is sent", async () => {
    const r = await imp("code,name\n1,Ann\n");
    expect(r.exitCode).toBe(2);
    expect(errorText(r)).toMatch(/no externalId column.*"code", "name"/);
    expect(r.stdout).toBe("");
    expect(await creatorCount(s.sb)).toBe(SEEDED);
  });

  it("an over-long name, a bad email and a bad active cell are rejected with reasons", async () => {
    const text = `externalId,name,email,active\nl-1,${"n".repeat(201)},,\nl-2,Ann,ann@@example,\nl-3,Bob,,maybe\nl-4,Cy,,\n`;
    const r = await imp(text);
    expect(r.exitCode).toBe(3);
    expect(r.json().rejected).toEqual([
      { line: 2, externalId: "l-1", reasons: ["name: must be at most 200 characters"] },
      { line: 3, externalId: "l-2", reasons: ["email: must be a valid email address"] },
      {
        line: 4,
        externalId: "l-3",
        reasons: [
          'active: must be true/false, yes/no, y/n, 1/0, active/inactive, enabled/disabled, or yes/no or active/inactive in Spanish, French, German or Portuguese (found "maybe")',
        ],
      },
    ]);
    expect(r.json().summary.added).toBe(1);
  });

  it("an id repeated in the file is rejected on its second and later appearances", async () => {
    const text = "externalId,name\nd-1,Ann\nd-2,Bob\n d-1 ,Ann B\nd-1,Ann C\n";
    const r = await imp(text);
    expect(r.exitCode).toBe(3);
    expect(r.json().rejected).toEqual([
      { line: 4, externalId: "d-1", reasons: ["externalId: also on line 2"] },
      { line: 5, externalId: "d-1", reasons: ["externalId: also on line 2"] },
    ]);
    expect((await creator(s.sb, "d-1")).name).toBe("Ann");
  });

  it("blank cells keep stored values; --clear-empty clears email and handle but never the name", async () => {
    await imp("externalId,name,email,handle\nc-1,Ann,ann@example.com,@ann\n");
    const keep = await imp("externalId,name,email,handle\nc-1,,,\n");
    expect(keep.json().summary.unchanged).toBe(1);
    expect(await creator(s.sb, "c-1")).toMatchObject({
      name: "Ann",
      email: "ann@example.com",
      handle: "@ann",
    });
    const clear = await imp("externalId,name,email,handle\nc-1,,,\n", { clearEmpty: true });
    expect(clear.json().summary.updated).toBe(1);
    expect(await creator(s.sb, "c-1")).toMatchObject({ name: "Ann", email: null, handle: null });
  });

  it("--dry-run sends nothing and needs no network", async () => {
    const text = "externalId,name\ndr-1,Ann\ndr-2,\ndr-3,Bob,extra\ndr-4,Cy\n";
    const file = writeTemp(text);
    // No sandbox at all: any request would fail.
    const r = await runFn(null, (ctx) => rosterImportRun({ file: file, dryRun: true, batchSize: 2 }, ctx), {
      globals: { json: true },
    });
    expect(r.exitCode).toBe(3);
    expect(r.json().dryRun).toBe(true);
    expect(r.json().summary).toEqual({ rows: 4, valid: 3, rejected: 1 });
    expect(r.json().batches.map((b: { rows: number }) => b.rows)).toEqual([2, 1]);
    expect(r.json().rejected).toEqual([
      { line: 4, externalId: "dr-3", reasons: ['row has 3 fields; the header has 2 (field 3 is "extra")'] },
    ]);
    expect(r.stderr).toMatch(/Dry run.*3 valid and would be sent in 2 batches.*Nothing was sent/);
    expect(r.stderr).not.toMatch(/embedded sandbox/);
    expect(await creatorCount(s.sb)).toBe(SEEDED);
  });

  it("2,503 rows: batches of 1000/1000/500, local and server rejects in each batch mapped to lines", async () => {
    const lines = ["externalId,name,email"];
    const serverRejects = new Set([7, 1200, 2300]); // new creator without a name: only the service knows
    for (let i = 1; i <= 2503; i++) {
      if (i === 5) lines.push(`big-${i},Five,five@bad`);
      else if (i === 1500) lines.push(`big-${i},${"x".repeat(300)},`);
      else if (i === 2503) lines.push("big-1,Again,");
      else if (serverRejects.has(i)) lines.push(`big-${i},,`);
      else lines.push(`big-${i},Creator ${i},c${i}@example.com`);
    }
    const file = writeTemp(`${lines.join("\n")}\n`);
    const rejects = writeTemp("", "rejects.csv");
    const r = await runFn(s.sb, (ctx) => rosterImportRun({ file: file, rejects }, ctx), {
      globals: { json: true },
    });
    expect(r.exitCode).toBe(3);
    expect(r.json().summary).toEqual({ rows: 2503, added: 2497, updated: 0, unchanged: 0, rejected: 6 });
    expect(r.json().batches.map((b: { rows: number }) => b.rows)).toEqual([1000, 1000, 500]);
    expect(r.json().batches.map((b: { rejected: number }) => b.rejected)).toEqual([1, 1, 1]);
    const expected = [
      [6, "big-5", "email: must be a valid email address"],
      [8, "big-7", "name: is required for a new creator"],
      [1201, "big-1200", "name: is required for a new creator"],
      [1501, "big-1500", "name: must be at most 200 characters"],
      [2301, "big-2300", "name: is required for a new creator"],
      [2504, "big-1", "externalId: also on line 2"],
    ];
    expect(
      r
        .json()
        .rejected.map((x: { line: number; externalId: string; reasons: string[] }) => [
          x.line,
          x.externalId,
          x.reasons.join("; "),
        ]),
    ).toEqual(expected);
    // The rejects file: line, reasons, then the row's own columns as read.
    const csv = parse(readFileSync(rejects, "utf8")) as string[][];
    expect(csv[0]).toEqual(["line", "reasons", "externalId", "name", "email"]);
    expect(csv.slice(1).map((r) => [r[0], r[2], r[1]])).toEqual(expected.map((e) => e.map(String)));
    expect(csv[1]).toEqual(["6", "email: must be a valid email address", "big-5", "Five", "five@bad"]);
    expect(csv[2]).toEqual(["8", "name: is required for a new creator", "big-7", "", ""]);
    expect(await creatorCount(s.sb)).toBe(SEEDED + 2497);
  });

  it("over 20 rejected rows: stderr shows 20 and points to the rest", async () => {
    const rows = Array.from({ length: 25 }, (_, i) => `m-${i},N,bad-email`);
    const r = await imp(`externalId,name,email\n${rows.join("\n")}\n`, {}, { json: false });
    expect(r.exitCode).toBe(3);
    expect(r.stderr.match(/^line \d+/gm)).toHaveLength(20);
    expect(r.stderr).toMatch(/\.\.\. and 5 more, use --rejects FILE to get them all/);
  });

  it("invalid UTF-8 is exit 2 before anything is sent", async () => {
    const bytes = Buffer.concat([
      Buffer.from("externalId,name\nu-1,Ann\nu-2,Ren"),
      Buffer.from([0xe9, 0x0a]),
    ]);
    const r = await imp(bytes);
    expect(r.exitCode).toBe(2);
    expect(errorText(r)).toMatch(/line 3, field 2 \(name\): bytes that are not UTF-8.*Nothing was sent/);
    expect(await creator(s.sb, "u-1")).toBeUndefined();
  });

  it("an unclosed quote is exit 2 naming the line; nothing is sent", async () => {
    const r = await imp('externalId,name\nq-1,Ann\nq-2,"Bob\nq-3,Cy\n');
    expect(r.exitCode).toBe(2);
    expect(errorText(r)).toMatch(
      /line 3, field 2 \(name\): a quoted field opens here and is never closed\. Nothing was sent/,
    );
    expect(await creator(s.sb, "q-1")).toBeUndefined();
  });

  it("a record over 64 KiB is exit 2 naming the line", async () => {
    const r = await imp(`externalId,name\nq-1,Ann\nq-2,${"b".repeat(70_000)}\n`);
    expect(r.exitCode).toBe(2);
    expect(errorText(r)).toMatch(
      /line 3, field 2 \(name\): the record starting on line 3 is longer than 64 KiB/,
    );
  });

  it("a missing file, an empty file and --rejects naming the input are usage errors", async () => {
    const missing = await runFn(s.sb, (ctx) => rosterImportRun({ file: "/nonexistent/roster.csv" }, ctx));
    expect(missing.exitCode).toBe(2);
    expect(errorText(missing)).toMatch(/Cannot read \/nonexistent\/roster.csv: no such file/);
    const empty = await imp("\n\n");
    expect(empty.exitCode).toBe(2);
    expect(errorText(empty)).toMatch(/is empty/);
    const file = writeTemp("externalId\nx\n");
    const same = await runFn(s.sb, (ctx) => rosterImportRun({ file: file, rejects: file }, ctx));
    expect(same.exitCode).toBe(2);
  });

  it("429 and 502 during the import are retried and the import succeeds", async () => {
    await s.http("POST", "/faults", {
      control: true,
      body: { next: ["429", "502", "429"], retryAfterSeconds: 0, pathPrefix: "/creators/batch" },
    });
    const rows = Array.from({ length: 30 }, (_, i) => `f-${i},Name ${i}`);
    const r = await imp(`externalId,name\n${rows.join("\n")}\n`, { batchSize: 10 });
    expect(r.exitCode).toBe(0);
    expect(r.json().summary).toEqual({ rows: 30, added: 30, updated: 0, unchanged: 0, rejected: 0 });
    expect(s.sb.faults.config.next).toEqual([]);
  });

  it("a 500 after the batch was saved repeats it without duplicates and says so", async () => {
    await s.http("POST", "/faults", {
      control: true,
      body: { next: ["500"], pathPrefix: "/creators/batch" },
    });
    const rows = Array.from({ length: 15 }, (_, i) => `p-${i},Name ${i}`);
    const r = await imp(`externalId,name\n${rows.join("\n")}\n`, { batchSize: 10 }, { json: true });
    expect(r.exitCode).toBe(0);
    expect(r.json().batches[0]).toMatchObject({ rows: 10, unchanged: 10, repeated: true });
    expect(r.json().batches[1]).toMatchObject({ rows: 5, added: 5 });
    expect(r.json().summary).toEqual({ rows: 15, added: 5, updated: 0, unchanged: 10, rejected: 0 });
    expect(r.stderr).toMatch(/Batch 1 \(lines 2-11\) was sent again after an uncertain 500/);
    expect(await creatorCount(s.sb)).toBe(SEEDED + 15);
  });

  it("Ctrl-C between batches stops, writes the rejects so far and exits 130", async () => {
    const rows = Array.from({ length: 30 }, (_, i) => (i === 3 ? `i-${i},N,bad` : `i-${i},Name ${i},`));
    const file = writeTemp(`externalId,name,email\n${rows.join("\n")}\n`);
    const rejects = writeTemp("", "rejects.csv");
    const ac = new AbortController();
    const r = await runFn(
      s.sb,
      (ctx) => rosterImportRun({ file: file, batchSize: 10, rejects, concurrency: 1 }, ctx),
      {
        globals: { json: true },
        signal: ac.signal,
        intercept: async (spec, call) => {
          const res = await call(spec);
          if (spec.path === "/creators/batch") ac.abort();
          return res;
        },
      },
    );
    expect(r.exitCode).toBe(130);
    expect(errorText(r)).toMatch(
      /Interrupted after line \d+: 1 batch \(10 rows, lines 2-12\) had already been sent/,
    );
    expect(r.json().complete).toBe(false);
    expect(r.json().interrupted).toBe(true);
    expect(r.json().batches).toHaveLength(1);
    expect(readFileSync(rejects, "utf8")).toBe(
      "line,reasons,externalId,name,email\n5,email: must be a valid email address,i-3,N,bad\n",
    );
    expect(await creatorCount(s.sb)).toBe(SEEDED + 10);
  });

  it("Ctrl-C while the file is being checked: exit 130, nothing sent", async () => {
    const rows = Array.from({ length: 50 }, (_, i) => `cc-${i},Name ${i}`);
    const file = writeTemp(`externalId,name\n${rows.join("\n")}\n`);
    const ac = new AbortController();
    ac.abort();
    const r = await runFn(s.sb, (ctx) => rosterImportRun({ file: file }, ctx), {
      signal: ac.signal,
    });
    expect(r.exitCode).toBe(130);
    expect(errorText(r)).toMatch(
      /^Interrupted while checking .*roster\.csv \(0 rows read\): nothing was sent\.$/,
    );
    expect(await creatorCount(s.sb)).toBe(SEEDED);
  });

  it("without --json prints nothing on stdout and the summary on stderr", async () => {
    const r = await imp("externalId,name\nn-1,Ann\n", {}, { json: false });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/Imported .*1 row in 1 batch: 1 added/);
  });

  it("on a terminal shows a progress bar on stderr and still ends with the summary", async () => {
    s.sb.faults.set({ latencyMs: 150 });
    const rows = Array.from({ length: 40 }, (_, i) => `t-${i},Name ${i}`);
    const file = writeTemp(`externalId,name\n${rows.join("\n")}\n`);
    const r = await runFn(s.sb, (ctx) => rosterImportRun({ file: file, batchSize: 10 }, ctx), {
      tty: true,
      // The bar is fitted to the terminal width the stream reports.
      setup: async (ctx) => {
        Object.assign(ctx.io.stderr, { isTTY: true, columns: 100 });
      },
    });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/Importing \[/);
    expect(r.stderr).toMatch(/40 rows in 4 batches: 40 added/);
  });

  it("a read-only key is exit 4 and nothing is saved", async () => {
    const file = writeTemp("externalId,name\nro-1,Ann\n");
    const t = await runFn(s.sb, (ctx) => rosterImportRun({ file: file }, ctx), {
      key: s.readOnlyKey,
    });
    expect(t.exitCode).toBe(4);
    expect(t.stderr).toMatch(/Stopped at batch 1 \(lines 2-2\): no rows were sent/);
    expect(await creator(s.sb, "ro-1")).toBeUndefined();
  });

  it("a batch that keeps failing stops the import (exit 7) and says which batches were saved", async () => {
    const rows = Array.from({ length: 25 }, (_, i) => `s-${i},Name ${i}`);
    const file = writeTemp(`externalId,name\n${rows.join("\n")}\n`);
    const r = await runFn(
      s.sb,
      (ctx) => rosterImportRun({ file: file, batchSize: 10, concurrency: 1 }, ctx),
      {
        globals: { json: true },
        intercept: async (spec, call) => {
          const res = await call(spec);
          s.sb.faults.set({ next: Array(20).fill("502") });
          return res;
        },
      },
    );
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toMatch(
      /Stopped at batch 2 \(lines 12-21\): 1 batch \(10 rows, lines 2-11\) had already been sent and saved/,
    );
    expect(r.json()).toMatchObject({ complete: false, summary: { rows: 20, added: 10 } });
    s.sb.faults.set({ next: [] });
    expect(await creatorCount(s.sb)).toBe(SEEDED + 10);
  });

  it("Ctrl-C while a batch is in flight says that batch's outcome is unknown (exit 130)", async () => {
    const rows = Array.from({ length: 30 }, (_, i) => `w-${i},Name ${i}`);
    const file = writeTemp(`externalId,name\n${rows.join("\n")}\n`);
    const ac = new AbortController();
    let calls = 0;
    const r = await runFn(
      s.sb,
      (ctx) => rosterImportRun({ file: file, batchSize: 10, concurrency: 1 }, ctx),
      {
        globals: { json: true },
        signal: ac.signal,
        intercept: async (spec, call) => {
          if (++calls !== 2) return call(spec);
          // Batch 2 stalls at the sandbox; Ctrl-C once the sandbox holds it.
          s.sb.faults.set({ next: ["stall"], stallMs: 30_000 });
          const sent = call(spec);
          await until(() => s.sb.faults.config.next.length === 0, 10_000, "batch 2 at the sandbox");
          ac.abort();
          return sent;
        },
      },
    );
    expect(r.exitCode).toBe(130);
    expect(errorText(r)).toMatch(
      /Interrupted while batch 2 \(lines 12-21\) was being sent; that batch may or may not have been saved\. Before it, 1 batch \(10 rows, lines 2-11\) had already been sent and saved/,
    );
    expect(r.json()).toMatchObject({ complete: false, interrupted: true });
  });
});
