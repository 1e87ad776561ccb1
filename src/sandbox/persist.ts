// Snapshot load/save: the store as one JSON file, Maps and Sets tagged, written atomically.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../errors.js";
import type { Store } from "./store.js";

const SNAPSHOT = "sandbox-state.json";

function replacer(_key: string, value: unknown): unknown {
  if (value instanceof Map) return { $map: [...value.entries()] };
  if (value instanceof Set) return { $set: [...value.values()] };
  return value;
}

function reviver(_key: string, value: unknown): unknown {
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const v = value as { $map?: [unknown, unknown][]; $set?: unknown[] };
    if (v.$map && Object.keys(v).length === 1) return new Map(v.$map);
    if (v.$set && Object.keys(v).length === 1) return new Set(v.$set);
  }
  return value;
}

export function snapshotPath(dataDir: string): string {
  return join(dataDir, SNAPSHOT);
}

export function loadSnapshot(dataDir: string): Store | undefined {
  const p = snapshotPath(dataDir);
  if (!existsSync(p)) return undefined;
  let store: Store;
  try {
    store = JSON.parse(readFileSync(p, "utf8"), reviver) as Store;
  } catch (err) {
    throw new UsageError(
      `The sandbox state in ${p} cannot be read (${(err as Error).message}).`,
      "Move the file aside (or delete it) to start the sandbox from its seed.",
    );
  }
  if (!(store?.orgs instanceof Map) || !(store.keys instanceof Map) || !store.defaultKeys) {
    throw new UsageError(
      `${p} is not a sandbox state file.`,
      "Move the file aside (or delete it) to start the sandbox from its seed.",
    );
  }
  return store;
}

export function saveSnapshot(dataDir: string, store: Store): void {
  const p = snapshotPath(dataDir);
  const tmp = `${p}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(store, replacer), { mode: 0o600 });
  renameSync(tmp, p);
}
