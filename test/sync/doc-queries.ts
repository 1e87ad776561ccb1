// The example queries of docs/database.md, for tests that run them.
import { readFileSync } from "node:fs";

export const DOC = readFileSync(new URL("../../docs/database.md", import.meta.url), "utf8");

/** The documented SQL block that computes commission for a range of days (tested in sync.test.ts). */
export function rangeQuery(dialect: "sqlite" | "postgres", from: string, through: string): string {
  const m = /```sql\n(-- SQLite: estimated commission per creator and campaign[\s\S]*?)```/.exec(DOC);
  if (!m) throw new Error("docs/database.md lost its range query");
  let sql = m[1]!.replace("'2026-11-01'", `'${from}'`).replace("'2026-11-21'", `'${through}'`);
  if (dialect === "postgres")
    sql = sql.replace("printf('%d.%04d', q / 10000, q % 10000)", "round(q::numeric / 10000, 4)");
  return sql.trim().replace(/;$/, "");
}
