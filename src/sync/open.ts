// Opens the destination of a `sync` or `sync status`, loading its driver only now (libsql, pg).
import type { Destination } from "./destination.js";
import type { SyncTarget } from "./target.js";

export async function openDestination(
  target: SyncTarget,
  o: { mustExist?: boolean; readonly?: boolean } = {},
): Promise<Destination> {
  if (target.kind === "sqlite") {
    const { openSqlite } = await import("./sqlite.js");
    return openSqlite({
      path: target.path,
      label: target.label,
      mustExist: o.mustExist,
      readonly: o.readonly,
    });
  }
  const { openPostgres } = await import("./postgres.js");
  return openPostgres(target);
}
