// The conversion of the cursors older versions kept in config.json (keyed by the service's base URL
// or a profile label, and a --cursor name) into the checkpoint store (src/export/checkpoint.ts),
// once: each to the file it last wrote, or, when it wrote to stdout, to its name. Inside the config
// store's lock: the checkpoints are written first (an entry the store already has is kept, it is
// newer), then removed from config.json, so a crash in between only converts them again.
import type { ConfigStore } from "../config/store.js";
import type { Checkpoint, CheckpointStore } from "./checkpoint.js";
import { cursorKey, type Destination, destKey } from "./cursor-id.js";

/** An entry as older versions saved it. */
interface OldCheckpoint extends Checkpoint {
  /** The target label of the oldest versions ("prod", "NAME@env", "env@HOST", "embedded-sandbox"). */
  profile?: string | undefined;
}

const ownerOf = (cp: OldCheckpoint) => `${cp.service ?? cp.profile ?? ""}|${cp.organizationId}|${cp.name}`;

/** Where an old entry's rows went: its own `out`, or (a correction cursor) its main cursor's. */
function outOf(cp: OldCheckpoint, mains: Map<string, OldCheckpoint>): string | null {
  if (cp.out) return cp.out;
  if (cp.feed === "corrections") return mains.get(ownerOf(cp))?.out ?? null;
  return null;
}

function converted(cp: OldCheckpoint, out: string | null): Checkpoint {
  const { profile, ...rest } = cp;
  const where = cp.service ?? `"${profile ?? "?"}"`;
  return {
    ...rest,
    out,
    ...(cp.service ? {} : { service: undefined }),
    via: profile ?? cp.via,
    convertedFrom: `cursor "${cp.name}" of ${where} in config.json`,
  };
}

export async function convertOldCursors(store: CheckpointStore, config: ConfigStore): Promise<void> {
  await config.update(async (d) => {
    const old = Object.values(d.cursors) as OldCheckpoint[];
    if (old.length === 0) return;
    const mains = new Map(old.filter((c) => c.feed === "redemptions").map((c) => [ownerOf(c), c]));
    const byDest = new Map<string, { dest: Destination; cps: Map<string, Checkpoint> }>();
    for (const cp of old) {
      const out = outOf(cp, mains);
      const dest: Destination = out ? { kind: "file", path: out } : { kind: "named", name: cp.name };
      const key = cursorKey({ organizationId: cp.organizationId, feed: cp.feed, type: cp.type, dest });
      const group = byDest.get(destKey(dest)) ?? { dest, cps: new Map<string, Checkpoint>() };
      byDest.set(destKey(dest), group);
      const seen = group.cps.get(key);
      // Two old entries for one destination (two spellings of one service): the newer one wins.
      if (!seen || seen.updatedAt < cp.updatedAt) group.cps.set(key, converted(cp, out));
    }
    for (const { dest, cps } of byDest.values()) {
      const have = new Set(store.of(dest).map((e) => e.key));
      const put = [...cps].filter(([k]) => !have.has(k)).map(([key, cp]) => ({ key, cp }));
      if (put.length > 0) await store.save(dest, put);
    }
    d.cursors = {};
  });
}
