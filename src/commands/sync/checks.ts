// The checks a sync makes of its destination before writing (and sync status and sync --dry-run before
// reading): a schema this partner-cli knows, tables of its own, the copy of the key's organization.
import { UsageError } from "../../errors.js";
import type { Destination } from "../../sync/destination.js";
import { LATEST_SCHEMA_VERSION } from "../../sync/schema.js";

/** Refuses a database this partner-cli must not write: newer schema, someone else's tables. */
export async function checkSchema(dest: Destination): Promise<number> {
  const version = await dest.schemaVersion();
  if (version > LATEST_SCHEMA_VERSION)
    throw new UsageError(
      `${dest.label} has schema version ${version}, newer than this partner-cli knows (${LATEST_SCHEMA_VERSION}); nothing was written.`,
      "A newer partner-cli wrote it: upgrade partner-cli (npm install partner-cli@latest) and run again.",
    );
  if (version === 0) {
    const foreign = await dest.foreignObjects();
    if (foreign.length)
      throw new UsageError(
        `${dest.label} already holds ${foreign.join(", ")}, not created by partner-cli; nothing was written.`,
        "Name a new database (or another PostgreSQL schema with ?schema=NAME).",
      );
  }
  return version;
}

/** Refuses a copy that belongs to another organization than the key's (exit 2, nothing written). */
export function checkOrganization(
  label: string,
  meta: Record<string, string>,
  org: { id: string; name: string },
): void {
  if (meta.organization_id && meta.organization_id !== org.id)
    throw new UsageError(
      `${label} holds the copy of organization ${meta.organization_name ?? ""} (${meta.organization_id}); this key belongs to ${org.name} (${org.id}). Nothing was written.`,
      "Use another --to for this organization, or the key of the organization the copy belongs to.",
    );
}
