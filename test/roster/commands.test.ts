import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parse } from "csv-parse/sync";
import { beforeEach, describe, expect, it } from "vitest";
import { rosterExportRun } from "../../src/commands/roster/export.js";
import { rosterGetRun } from "../../src/commands/roster/get.js";
import { rosterImportRun } from "../../src/commands/roster/import.js";
import { rosterListRun } from "../../src/commands/roster/list.js";
import { rosterSetRun } from "../../src/commands/roster/set.js";
import { tempDir } from "../helpers/sandbox.js";
import { creator, errorText } from "./harness.js";
import { runFn } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";

const box = useSandbox();
beforeEach(async () => {
  await box.http("POST", "/reset", { control: true, body: {} });
});

describe("roster set / get", () => {
  it("a set that changes nothing says so (exit 0); a change right after creation still says Updated", async () => {
    const c = await runFn(box.sb, (ctx) =>
      rosterSetRun({ externalId: "same-1", name: "Ann", handle: "@ann" }, ctx),
    );
    expect(c.stderr).toBe("Created creator same-1.\n");
    // Same second as the creation: the message comes from the fields, not from updatedAt.
    const u = await runFn(box.sb, (ctx) => rosterSetRun({ externalId: "same-1", handle: "@ann2" }, ctx));
    expect(u.exitCode).toBe(0);
    expect(u.stderr).toBe("Updated creator same-1.\n");
    const again = await runFn(box.sb, (ctx) =>
      rosterSetRun({ externalId: "same-1", name: "Ann", handle: "@ann2" }, ctx),
    );
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toBe("Creator same-1 already had these values; nothing changed.\n");
    expect(again.stdout).toMatch(/^handle\t@ann2$/m);
  });

  it("creates, then updates; says which; --email '' clears", async () => {
    const c = await runFn(box.sb, (ctx) =>
      rosterSetRun({ externalId: "s-1", name: "Ann", email: "ann@example.com", handle: "@ann" }, ctx),
    );
    expect(c.exitCode).toBe(0);
    expect(c.stderr).toMatch(/Created creator s-1/);
    expect(c.stdout).toMatch(/^name\tAnn$/m);
    const u = await runFn(
      box.sb,
      (ctx) => rosterSetRun({ externalId: "s-1", email: "", inactive: true }, ctx),
      {
        globals: { json: true },
      },
    );
    expect(u.exitCode).toBe(0);
    expect(u.stderr).toBe("");
    expect(u.json()).toMatchObject({
      externalId: "s-1",
      name: "Ann",
      email: null,
      handle: "@ann",
      active: false,
    });
  });

  it("externalIds with '/', '%', spaces and unicode go through set and get", async () => {
    for (const id of ["a/b", "100%", "with space", "Zoë/张伟 #1?x=y"]) {
      const s = await runFn(box.sb, (ctx) => rosterSetRun({ externalId: id, name: `N ${id}` }, ctx), {
        globals: { json: true },
      });
      expect(s.exitCode).toBe(0);
      expect(s.json().externalId).toBe(id);
      const g = await runFn(box.sb, (ctx) => rosterGetRun({ externalId: id }, ctx), {
        globals: { json: true },
      });
      expect(g.exitCode).toBe(0);
      expect(g.json()).toMatchObject({ externalId: id, name: `N ${id}` });
    }
  });

  it("bad input is a usage error before any request", async () => {
    const bad = await runFn(box.sb, (ctx) =>
      rosterSetRun({ externalId: "s-2", name: "A", email: "nope" }, ctx),
    );
    expect(bad.exitCode).toBe(2);
    expect(errorText(bad)).toMatch(/--email: must be a valid email address/);
    const none = await runFn(box.sb, (ctx) => rosterSetRun({ externalId: "s-2" }, ctx));
    expect(none.exitCode).toBe(2);
    expect(errorText(none)).toMatch(/Nothing to set/);
    const both = await runFn(box.sb, (ctx) =>
      rosterSetRun({ externalId: "s-2", active: true, inactive: true }, ctx),
    );
    expect(both.exitCode).toBe(2);
    const longId = await runFn(box.sb, (ctx) =>
      rosterSetRun({ externalId: "x".repeat(101), name: "A" }, ctx),
    );
    expect(longId.exitCode).toBe(2);
    expect(await creator(box.sb, "s-2")).toBeUndefined();
  });

  it("a new creator without a name is the service's 400 (exit 2)", async () => {
    const r = await runFn(box.sb, (ctx) => rosterSetRun({ externalId: "s-3", email: "a@example.com" }, ctx));
    expect(r.exitCode).toBe(2);
  });

  it("get of an unknown creator is exit 5 with a hint", async () => {
    const r = await runFn(box.sb, (ctx) => rosterGetRun({ externalId: "nobody" }, ctx));
    expect(r.exitCode).toBe(5);
    expect((r.thrown as { hint?: string }).hint).toMatch(/No creator "nobody"/);
  });
});

describe("roster list", () => {
  it("one page as TSV with a note about more; --json is an array", async () => {
    const r = await runFn(box.sb, (ctx) => rosterListRun({ pageSize: 5 }, ctx));
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toBe("externalId\tname\temail\thandle\tactive\tupdatedAt");
    expect(lines).toHaveLength(6);
    expect(r.stderr).toMatch(
      /Showing 1-5 of 12 creators \(page 0\); use --page 1, --limit N or --all for more\./,
    );
    const j = await runFn(box.sb, (ctx) => rosterListRun({ page: 2, pageSize: 5 }, ctx), {
      globals: { json: true },
    });
    expect(j.json().map((c: { externalId: string }) => c.externalId)).toEqual(["cr-0011", "cr-0012"]);
  });

  it("--all pages through; --active filters", async () => {
    const all = await runFn(box.sb, (ctx) => rosterListRun({ all: true, pageSize: 5 }, ctx), {
      globals: { json: true },
    });
    expect(all.json()).toHaveLength(12);
    const inactive = await runFn(box.sb, (ctx) => rosterListRun({ all: true, active: false }, ctx));
    expect(inactive.stdout.trim().split("\n")).toHaveLength(2);
    const tsv = await runFn(box.sb, (ctx) => rosterListRun({ all: true, pageSize: 5 }, ctx));
    expect(tsv.stdout.trim().split("\n")).toHaveLength(13);
    expect(tsv.stderr).toMatch(/12 creators/);
  });

  it("--updated-since filters; bad values are usage errors", async () => {
    await runFn(box.sb, (ctx) => rosterSetRun({ externalId: "late-1", name: "Late" }, ctx));
    const now = (await creator(box.sb, "late-1")).updatedAt as string;
    const r = await runFn(box.sb, (ctx) => rosterListRun({ all: true, updatedSince: now }, ctx), {
      globals: { json: true },
    });
    expect(r.json().map((c: { externalId: string }) => c.externalId)).toEqual(["late-1"]);
    const bad = await runFn(box.sb, (ctx) => rosterListRun({ updatedSince: "yesterday" }, ctx));
    expect(bad.exitCode).toBe(2);
    const both = await runFn(box.sb, (ctx) => rosterListRun({ all: true, page: 1 }, ctx));
    expect(both.exitCode).toBe(2);
  });
});

describe("roster export", () => {
  it("writes the import format; export → import round-trips with every row unchanged", async () => {
    // Awkward values: formula-like handles, a quote, a comma, unicode, leading zeros.
    await runFn(box.sb, (ctx) =>
      rosterSetRun({ externalId: "007", name: 'Bond, "James"', handle: "=cmd|' /C calc'!A0" }, ctx),
    );
    await runFn(box.sb, (ctx) =>
      rosterSetRun({ externalId: "-neg", name: "Zoë 张伟", handle: "'@quoted", email: "z@example.com" }, ctx),
    );
    const dir = tempDir();
    const out = join(dir, "roster.csv");
    const e = await runFn(box.sb, (ctx) => rosterExportRun({ out }, ctx));
    expect(e.exitCode).toBe(0);
    expect(e.stderr).toMatch(/Exported 14 creators to/);
    expect(readdirSync(dirname(out))).toEqual(["roster.csv"]);
    const text = readFileSync(out, "utf8");
    const rows = parse(text) as string[][];
    expect(rows[0]).toEqual(["externalId", "name", "email", "handle", "active"]);
    expect(rows).toHaveLength(15);
    expect(rows.find((r) => r[0] === "007")).toEqual([
      "007",
      'Bond, "James"',
      "",
      "'=cmd|' /C calc'!A0",
      "true",
    ]);
    expect(rows.find((r) => r[0] === "'-neg")?.[3]).toBe("''@quoted");
    expect(rows.find((r) => r[0] === "cr-0001")?.[3]).toBe("'@ada1");

    const back = await runFn(box.sb, (ctx) => rosterImportRun({ file: out }, ctx), {
      globals: { json: true },
    });
    expect(back.exitCode).toBe(0);
    expect(back.json().summary).toEqual({ rows: 14, added: 0, updated: 0, unchanged: 14, rejected: 0 });
    expect(await creator(box.sb, "-neg")).toMatchObject({ handle: "'@quoted" });
  });

  it("to stdout by default; --active filters", async () => {
    const r = await runFn(box.sb, (ctx) => rosterExportRun({ active: false }, ctx));
    expect(r.exitCode).toBe(0);
    const rows = parse(r.stdout) as string[][];
    expect(rows).toHaveLength(2);
    expect(rows[1]?.[4]).toBe("false");
  });

  it("a folder that does not exist is a usage error and writes nothing", async () => {
    const r = await runFn(box.sb, (ctx) => rosterExportRun({ out: join(tempDir(), "no", "x.csv") }, ctx));
    expect(r.exitCode).toBe(2);
  });

  it("docs/examples/roster.csv imports cleanly, then every row is unchanged", async () => {
    const file = new URL("../../docs/examples/roster.csv", import.meta.url).pathname;
    const first = await runFn(box.sb, (ctx) => rosterImportRun({ file: file }, ctx), {
      globals: { json: true },
    });
    expect(first.exitCode).toBe(0);
    expect(first.json().summary.rejected).toBe(0);
    expect(first.json().summary.rows).toBeGreaterThanOrEqual(15);
    const second = await runFn(box.sb, (ctx) => rosterImportRun({ file: file }, ctx), {
      globals: { json: true },
    });
    expect(second.exitCode).toBe(0);
    expect(second.json().summary.unchanged).toBe(second.json().summary.rows);
    const dry = await runFn(null, (ctx) => rosterImportRun({ file: file, dryRun: true }, ctx), {
      globals: { json: true },
    });
    expect(dry.exitCode).toBe(0);
  });
});
