// docs/database.md describes the schema the code creates: every table, column and view is named there.
import { describe, expect, it } from "vitest";
import { TABLE_NAMES, TABLES, VIEW_NAMES } from "../../src/sync/schema.js";
import { DOC, rangeQuery } from "./doc-queries.js";

describe("docs/database.md", () => {
  it("names every table with each of its columns, and every view", () => {
    for (const t of TABLE_NAMES) {
      const section = DOC.split(`\n### ${t}\n`)[1]?.split("\n### ")[0];
      expect(section, `a section for ${t}`).toBeDefined();
      for (const c of TABLES[t].columns) expect(section, `${t}.${c.name}`).toContain(`| \`${c.name}\` |`);
      for (const ix of TABLES[t].indexes) expect(section, ix.name).toContain(ix.name);
    }
    for (const v of VIEW_NAMES) expect(DOC).toContain(`| \`${v}\` |`);
  });

  it("keeps its range query, with the placeholders the tests replace", () => {
    expect(rangeQuery("postgres", "2026-01-01", "2026-01-02")).toContain("round(q::numeric / 10000, 4)");
  });
});
