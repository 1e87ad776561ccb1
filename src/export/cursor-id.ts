// The identity of a cursor: the organization, the feed, the event-type filter and what it feeds.
// A leaf: the checkpoint store (checkpoint.ts) and the one-time conversion of old cursors
// (checkpoint-convert.ts) both key cursors with it.

export type FeedKind = "redemptions" | "corrections" | "events";

/** What a cursor feeds: an output file (real path), or a named series (stdout, one workbook per run). */
export type Destination = { kind: "file"; path: string } | { kind: "named"; name: string };

/** The identity of one checkpoint. */
export interface CursorId {
  organizationId: string;
  feed: FeedKind;
  /** Event-type filter (corrections: the correction type; events sync: --type). */
  type?: string | null | undefined;
  dest: Destination;
}

export function destKey(d: Destination): string {
  return d.kind === "file" ? `file:${d.path}` : `named:${d.name}`;
}

export function cursorKey(id: CursorId): string {
  return [id.organizationId, id.feed, id.type ?? "", destKey(id.dest)].join("|");
}
