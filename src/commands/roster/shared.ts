// Flag parsing shared by the roster commands.
import { UsageError } from "../../errors.js";
import type { Column } from "../../io/render.js";
import type { Creator } from "../../spec/creators.js";

/** `--updated-since`: an ISO 8601 timestamp, or a calendar day (midnight UTC). Returns the API form. */
export function parseUpdatedSince(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`))) return `${v}T00:00:00Z`;
  const ok = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(v);
  if (!ok || Number.isNaN(Date.parse(v))) {
    throw new UsageError(
      `--updated-since "${value}" is not a timestamp.`,
      "Use an ISO 8601 time such as 2025-03-01T00:00:00Z (or a day, 2025-03-01, meaning midnight UTC).",
    );
  }
  return new Date(Date.parse(v)).toISOString().replace(/\.000Z$/, "Z");
}

export const CREATOR_COLUMNS: Column<Creator>[] = [
  { header: "externalId", value: (c) => c.externalId },
  { header: "name", value: (c) => c.name, truncate: true },
  { header: "email", value: (c) => c.email, truncate: true, drop: 3 },
  { header: "handle", value: (c) => c.handle, truncate: true, drop: 2 },
  { header: "active", value: (c) => c.active },
  { header: "updatedAt", value: (c) => c.updatedAt, drop: 1 },
];
