// Opens the destination of a `sync` or `sync status`, loading its driver only now (libsql, pg).
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { Context } from "../context.js";
import type { Destination } from "./destination.js";
import type { SyncTarget } from "./target.js";

/** The run-lock file of a SQLite database: under the config dir, keyed by the file's real path. */
export function sqliteLockPath(ctx: Context, realPath: string): string {
  const h = createHash("sha256").update(realPath).digest("hex").slice(0, 16);
  return join(ctx.configDir(), "locks", `sync-${h}`);
}

export async function openDestination(
  target: SyncTarget,
  ctx: Context,
  o: { mustExist?: boolean } = {},
): Promise<Destination> {
  if (target.kind === "sqlite") {
    const { openSqlite, realDatabasePath } = await import("./sqlite.js");
    const real = realDatabasePath(target.path);
    return openSqlite({
      path: target.path,
      label: target.label,
      lockPath: sqliteLockPath(ctx, real),
      mustExist: o.mustExist,
    });
  }
  const { openPostgres } = await import("./postgres.js");
  return openPostgres(target);
}
