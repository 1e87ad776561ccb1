// Rejected rows: control characters, and the rejects file an operator fixes and imports as it is.
import { readFileSync, writeFileSync } from "node:fs";
import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import { beforeEach, describe, expect, it } from "vitest";
import { rosterImportRun } from "../../src/commands/roster/import.js";
import { creator, creatorCount, writeTemp } from "./harness.js";
import { runFn } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";

const s = useSandbox({ seed: "empty" });
beforeEach(async () => {
  await s.http("POST", "/reset", { control: true, body: { seed: "empty" } });
});

describe("control characters", () => {
  it("NUL or another C0 character in an id, a name, an email or a handle rejects the row; a tab does not", async () => {
    const file = writeTemp(
      [
        "externalId,name,email,handle",
        "n\u0000-1,Ann,,",
        "n-2,A\u0000nn,,",
        "n-3,Bell\u0007,,",
        "n-4,Cy,c\u0000y@example.com,",
        "n-5,Dee,,@d\u001b",
        "n-6,Tab\there,,",
        "",
      ].join("\n"),
    );
    const r = await runFn(s.sb, (ctx) => rosterImportRun({ file: file }, ctx), { globals: { json: true } });
    expect(r.exitCode).toBe(3);
    expect(r.json().rejected).toEqual([
      {
        line: 2,
        externalId: "n\u0000-1",
        reasons: ["externalId: holds a control character (U+0000, NUL) at position 2"],
      },
      {
        line: 3,
        externalId: "n-2",
        reasons: ["name: holds a control character (U+0000, NUL) at position 2"],
      },
      { line: 4, externalId: "n-3", reasons: ["name: holds a control character (U+0007) at position 5"] },
      {
        line: 5,
        externalId: "n-4",
        reasons: ["email: holds a control character (U+0000, NUL) at position 2"],
      },
      { line: 6, externalId: "n-5", reasons: ["handle: holds a control character (U+001B) at position 3"] },
    ]);
    expect(await creatorCount(s.sb)).toBe(1);
    expect((await creator(s.sb, "n-6")).name).toBe("Tab\there");
  });
});

describe("the rejects file", () => {
  it("holds line, reasons and the row's own columns in the input's order; fixed by a script, it imports as it is with 0 rejected", async () => {
    await s.http("POST", "/creators/batch", { body: { creators: [{ externalId: "k-0", name: "Kept" }] } });
    const input = writeTemp(
      [
        "Creator ID,Full Name,notes,E-mail,Instagram,Status",
        "k-1,Ann,first,ann@example,@ann,Active", // bad email
        "k-2,,new without a name,,@bo,yes", // the service refuses: a new creator needs a name
        "k-3,Cy,,cy@example.com,,maybe", // bad status word
        "k-1,Ann again,dup,ann2@example.com,,", // repeated id
        "k-4,Dee,extra,,,,surplus", // one field too many
        "k-5,E\u0000ve,,,,", // control character
        "k-6,Fay,,fay@example.com,@fay,Inactive", // fine
        "",
      ].join("\r\n"),
      "crm.csv",
    );
    const rejects = writeTemp("", "rejects.csv");
    const first = await runFn(s.sb, (ctx) => rosterImportRun({ file: input, rejects }, ctx), {
      globals: { json: true },
    });
    expect(first.exitCode).toBe(3);
    expect(first.json().summary).toEqual({ rows: 7, added: 1, updated: 0, unchanged: 0, rejected: 6 });

    const rows = parse(readFileSync(rejects), { relax_column_count: true }) as string[][];
    expect(rows[0]).toEqual([
      "line",
      "reasons",
      "Creator ID",
      "Full Name",
      "notes",
      "E-mail",
      "Instagram",
      "Status",
    ]);
    expect(rows.slice(1)).toEqual([
      ["2", "email: must be a valid email address", "k-1", "Ann", "first", "ann@example", "'@ann", "Active"],
      ["3", "name: is required for a new creator", "k-2", "", "new without a name", "", "'@bo", "yes"],
      [
        "4",
        'active: must be true/false, yes/no, y/n, 1/0, active/inactive, enabled/disabled, or yes/no or active/inactive in Spanish, French, German or Portuguese (found "maybe")',
        "k-3",
        "Cy",
        "",
        "cy@example.com",
        "",
        "maybe",
      ],
      ["5", "externalId: also on line 2", "k-1", "Ann again", "dup", "ann2@example.com", "", ""],
      [
        "6",
        'row has 7 fields; the header has 6 (field 7 is "surplus")',
        "k-4",
        "Dee",
        "extra",
        "",
        "",
        "",
        "surplus",
      ],
      [
        "7",
        "name: holds a control character (U+0000, NUL) at position 2",
        "k-5",
        "E\u0000ve",
        "",
        "",
        "",
        "",
      ],
    ]);

    // The operator's fix, as a script: correct the cells, keep every column (line and reasons too).
    const fixed = rows.map((r, i) => {
      if (i === 0) return r;
      const c = [...r];
      const reason = c[1]!;
      if (reason.startsWith("email")) c[5] = "ann@example.com";
      if (reason.startsWith("name: is required")) c[3] = "Bo";
      if (reason.startsWith("active")) c[7] = "enabled";
      if (reason.includes("also on line")) c[2] = "k-1b";
      if (reason.startsWith("row has")) c.length = 8;
      if (reason.includes("control character")) c[3] = "Eve";
      return c;
    });
    writeFileSync(rejects, stringify(fixed));

    const again = await runFn(s.sb, (ctx) => rosterImportRun({ file: rejects }, ctx), {
      globals: { json: true },
    });
    expect(again.json().rejected).toEqual([]);
    expect(again.exitCode).toBe(0);
    expect(again.json().summary).toEqual({ rows: 6, added: 6, updated: 0, unchanged: 0, rejected: 0 });
    // The line and reasons columns are recognized, not named as ignored; the extra notes column is.
    expect(again.stderr).toMatch(/Ignoring 1 column not used by the roster: notes\./);
    expect(await creator(s.sb, "k-1")).toMatchObject({
      name: "Ann",
      email: "ann@example.com",
      handle: "@ann",
    });
    expect(await creator(s.sb, "k-1b")).toMatchObject({ name: "Ann again" });
    expect(await creator(s.sb, "k-3")).toMatchObject({ active: true });
    expect(await creator(s.sb, "k-5")).toMatchObject({ name: "Eve" });
    expect(await creatorCount(s.sb)).toBe(8); // k-0, k-6 and the six fixed rows
  });
});

describe("--quiet and rejected rows (issue 26 item 11)", () => {
  it("nothing was listed, so the hint points at --rejects, not at 'the lines listed above' (exit 3)", async () => {
    const file = writeTemp(["externalId,name,email", "q-1,Ann,not-an-email", "q-2,Bob,", ""].join("\n"));
    const r = await s.run(["roster", "import", file, "--quiet"]);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toBe(
      "Error: 1 of 2 rows were rejected.\n--quiet listed none of them: run again with --rejects FILE to get them all as CSV (with their reasons), or without --quiet to see them here.\n",
    );
    expect(await creatorCount(s.sb)).toBe(1);
    const out = `${writeTemp("", "unused.csv")}.rejects.csv`;
    const withFile = await s.run(["roster", "import", file, "--quiet", "--rejects", out]);
    expect(withFile.exitCode).toBe(3);
    expect(withFile.stderr).toContain(`The rejected rows are in ${out}; fix them and import again.`);
  });
});
