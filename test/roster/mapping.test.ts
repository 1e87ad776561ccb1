import { describe, expect, it } from "vitest";
import { describeMapping, resembles } from "../../src/csv/headers.js";
import { checkRosterRow, mapColumns, parseActiveCell, parseColumnFlags } from "../../src/csv/roster.js";
import { UsageError } from "../../src/errors.js";

const map = (headers: string[], flags: string[] = []) =>
  mapColumns("f.csv", headers, parseColumnFlags(flags));

describe("roster columns", () => {
  it("matches headers case-insensitively, trimmed, ignoring spaces/_/-", () => {
    const m = map([" EXTERNAL ID ", "Name", "e-mail", "Handle ", "ACTIVE", "notes"]);
    expect(m.index).toEqual({ externalId: 0, name: 1, email: 2, handle: 3, active: 4 });
    expect(m.ignored).toEqual(["notes"]);
  });

  it("a missing externalId column names the headers found", () => {
    expect(() => map(["code", "name"])).toThrow(
      /no externalId column\. The columns found are: "code", "name"/,
    );
  });

  it("--column maps other headers; the mapped column wins over a same-named one", () => {
    const m = map(
      ["Creator ID", "Full name", "email", "Work Email"],
      ["externalId=creator id", "name=Full name", "email=Work Email"],
    );
    expect(m.index).toEqual({ externalId: 0, name: 1, email: 3 });
    expect(m.ignored).toEqual(["email"]);
  });

  it("bad --column flags are usage errors", () => {
    expect(() => parseColumnFlags(["phone=Phone"])).toThrow(/"phone" is not a roster field/);
    expect(() => parseColumnFlags(["externalId"])).toThrow(/not FIELD=HEADER/);
    expect(() => parseColumnFlags(["email=a", "EMAIL=b"])).toThrow(/maps email twice/);
    expect(() => map(["id"], ["externalId=Creator ID"])).toThrow(UsageError);
    expect(() => map(["id"], ["externalId=Creator ID"])).toThrow(/no column "Creator ID"/);
  });

  it("two columns for one field need a choice", () => {
    expect(() => map(["externalId", "email", "E-mail"])).toThrow(/2 columns that could be email/);
  });

  it("active cells", () => {
    for (const v of ["true", "YES", "1", " y "]) expect(parseActiveCell(v)).toBe(true);
    for (const v of ["false", "No", "0", "n"]) expect(parseActiveCell(v)).toBe(false);
    expect(parseActiveCell("maybe")).toBeUndefined();
  });
});

describe("checkRosterRow", () => {
  const m = map(["externalId", "name", "email", "handle", "active"]);
  it("blank cells are omitted (keep), with --clear-empty email/handle become null but name stays omitted", () => {
    expect(checkRosterRow(["a1", "", "", "", ""], m, { clearEmpty: false }).item).toEqual({
      externalId: "a1",
    });
    expect(checkRosterRow(["a1", " ", "", " ", ""], m, { clearEmpty: true }).item).toEqual({
      externalId: "a1",
      email: null,
      handle: null,
    });
  });
  it("trims and unescapes exported formula cells", () => {
    expect(
      checkRosterRow([" a1 ", " Ann ", "a@example.com", "'@ann", "no"], m, { clearEmpty: false }).item,
    ).toEqual({
      externalId: "a1",
      name: "Ann",
      email: "a@example.com",
      handle: "@ann",
      active: false,
    });
  });
  it("reports every reason in field order", () => {
    const r = checkRosterRow(["", "x".repeat(201), "not-an-email", "", "maybe"], m, { clearEmpty: false });
    expect(r.item).toBeUndefined();
    expect(r.reasons).toEqual([
      "externalId: is required",
      "name: must be at most 200 characters",
      "email: must be a valid email address",
      'active: must be true/false, yes/no, y/n, 1/0, active/inactive, enabled/disabled, or yes/no or active/inactive in Spanish, French, German or Portuguese (found "maybe")',
    ]);
  });
  it("a wrong number of fields is a row reason (extra blank cells are fine)", () => {
    expect(checkRosterRow(["a1", "Ann"], m, { clearEmpty: false }).reasons).toEqual([
      "row has 2 fields; the header has 5 (missing: email, handle, active)",
    ]);
    expect(checkRosterRow(["a1", "Ann", "", "", "", "", ""], m, { clearEmpty: false }).item).toEqual({
      externalId: "a1",
      name: "Ann",
    });
  });
});

describe("one header matcher: common names, suggestions", () => {
  it("a CRM's headers map without flags", () => {
    const m = map(["Creator ID", "Full Name", "E-mail", "Instagram", "Status"]);
    expect(m.index).toEqual({ externalId: 0, name: 1, email: 2, handle: 3, active: 4 });
    expect(m.how).toEqual({
      externalId: "synonym",
      name: "synonym",
      email: "name",
      handle: "synonym",
      active: "synonym",
    });
    expect(describeMapping(m)).toEqual([
      'Columns: externalId from "Creator ID", name from "Full Name", email from "E-mail", handle from "Instagram", active from "Status".',
    ]);
  });

  it("every common name, any case, spaces, _ and -", () => {
    const cases: [string, string][] = [
      ["external id", "externalId"],
      ["creator_id", "externalId"],
      ["ID", "externalId"],
      ["Creator Name", "name"],
      ["display-name", "name"],
      ["Email Address", "email"],
      ["USERNAME", "handle"],
      ["Social Handle", "handle"],
      ["enabled", "active"],
    ];
    for (const [header, field] of cases) {
      const m = map(field === "externalId" ? [header] : ["externalId", header]);
      expect(m.index[field as keyof typeof m.index], header).toBe(field === "externalId" ? 0 : 1);
    }
  });

  it("the field's own name wins over a common name; the other column gets a did-you-mean line", () => {
    const m = map(["externalId", "name", "Full Name", "active", "Creator Status", "Instagram handle 2"]);
    expect(m.index).toEqual({ externalId: 0, name: 1, active: 3 });
    expect(describeMapping(m)).toEqual([
      "Ignoring 3 columns not used by the roster: Full Name, Creator Status, Instagram handle 2.",
      '  Did you mean --column name="Full Name"?',
      '  Did you mean --column active="Creator Status"?',
      '  Did you mean --column handle="Instagram handle 2"?',
    ]);
  });

  it("two common names for one field need a choice; a rejects file's line and reasons are not named", () => {
    expect(() => map(["id", "Creator ID"])).toThrow(/2 columns that could be externalId: "id", "Creator ID"/);
    const m = map(["line", "reasons", "externalId", "notes"]);
    expect(m.ignored).toEqual(["notes"]);
  });

  it("no id column: a column that looks like one is suggested; a one-column header holding ; or a tab names it", () => {
    try {
      map(["Influencer ID", "name"]);
      expect.unreachable();
    } catch (err) {
      expect((err as UsageError).hint).toBe('Did you mean --column externalId="Influencer ID"?');
    }
    for (const h of ["member_id", "partnerId", "ID number"])
      expect(resembles(h, ["externalId"]), h).toBe("externalId");
    for (const h of ["Idea", "Video", "valid"]) expect(resembles(h, ["externalId"]), h).toBeUndefined();
    expect(() => mapColumns("f.csv", ["externalId;name"], new Map(), { delimiter: "," })).toThrow(
      /its header is one column, "externalId;name", which looks delimited by ";"/,
    );
    expect(() => mapColumns("f.csv", ["externalId\tname"], new Map(), { delimiter: "," })).toThrow(
      /which looks delimited by tab/,
    );
  });

  it("--column for an --ids file maps externalId only", () => {
    expect(() => parseColumnFlags(["name=Full Name"], ["externalId"])).toThrow(
      /only externalId can be mapped here/,
    );
    expect(parseColumnFlags(["externalId=Member No"], ["externalId"]).get("externalId")).toBe("Member No");
  });

  it("active words", () => {
    for (const v of ["Active", "ENABLED", "yes", "Y"]) expect(parseActiveCell(v)).toBe(true);
    for (const v of ["inactive", "Disabled", "NO", "n"]) expect(parseActiveCell(v)).toBe(false);
    expect(parseActiveCell("on")).toBeUndefined();
  });
});
