// The one lock implementation (src/io/file-lock.ts) with its options, and the locks built on it that
// proper-lockfile used to take: the config store's and a sandbox data dir's.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { ConfigStore } from "../../src/config/store.js";
import { LockedError } from "../../src/errors.js";
import { lockFileOf, ownRecord, readOwner, takeLock, withLock } from "../../src/io/file-lock.js";
import { exitCodeFor } from "../../src/main.js";
import { lockDataDir } from "../../src/sandbox/embedded.js";
import { tempDir } from "../helpers/sandbox.js";

async function deadPid(): Promise<number> {
  const p = execa("node", ["-e", ""]);
  const pid = p.pid!;
  await p;
  return pid;
}

/** A lock record naming a process that has exited. */
async function deadRecord(file: string): Promise<string> {
  const text = `${JSON.stringify({ ...ownRecord(), pid: await deadPid(), start: "1" })}\n`;
  writeFileSync(file, text);
  return text;
}

async function refusal(p: Promise<unknown>): Promise<LockedError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LockedError);
  expect(exitCodeFor(err)).toBe(9);
  return err as LockedError;
}

describe("takeLock options", () => {
  it("wait: 0 refuses a live owner at once (exit 9, naming it); a wait outlasts a short hold", async () => {
    const file = join(tempDir(), "x.lock.json");
    const first = await takeLock(file, { what: "The thing" });
    const err = await refusal(takeLock(file, { what: "The thing" }));
    expect(err.message).toMatch(
      new RegExp(`^The thing is in use by another partner-cli run \\(pid ${process.pid}, since `),
    );
    expect(err.hint).toBe("Wait for the other run to finish, then run again.");
    setTimeout(() => void first.release(), 150);
    const second = await takeLock(file, { what: "The thing", wait: 10_000 });
    second.assertHeld();
    await second.release();
    expect(existsSync(file)).toBe(false);
  });

  it("wait ends: the refusal comes after the wait, through the caller's clock", async () => {
    const file = join(tempDir(), "x.lock.json");
    const held = await takeLock(file, { what: "The thing" });
    const sleeps: number[] = [];
    const clock = { sleep: async (ms: number) => void sleeps.push(ms) };
    const err = await refusal(takeLock(file, { what: "The thing", wait: 50, clock }));
    expect(err.message).toMatch(/in use by another partner-cli run/);
    expect(sleeps.length).toBeGreaterThan(0);
    expect(sleeps.every((ms) => ms >= 1 && ms <= 20)).toBe(true);
    await held.release();
  });

  it("takeOverDeadOwner: a gone owner's lock is taken over by default, kept (and named) when false", async () => {
    const dir = tempDir();
    const file = join(dir, "x.lock.json");
    const text = await deadRecord(file);
    const err = await refusal(takeLock(file, { what: "The thing", takeOverDeadOwner: false, wait: 5_000 }));
    expect(err.message).toMatch(
      /^The thing is locked by .*x\.lock\.json, left by a partner-cli run that is gone/,
    );
    expect(err.hint).toBe(`Remove ${file} and run again.`);
    expect(readFileSync(file, "utf8")).toBe(text);
    const lock = await takeLock(file, { what: "The thing" });
    expect(readOwner(file)).toMatchObject({ kind: "record", record: { pid: process.pid } });
    await lock.release();
  });

  it("withLock releases after a throw", async () => {
    const file = join(tempDir(), "x.lock.json");
    await expect(
      withLock(file, { what: "The thing" }, () => Promise.reject(new Error("boom"))),
    ).rejects.toThrow("boom");
    expect(existsSync(file)).toBe(false);
  });
});

describe("the locks proper-lockfile used to take", () => {
  it("the config store: a lock left by a killed process does not hold an update up", async () => {
    const dir = tempDir();
    const store = new ConfigStore(dir);
    await store.update((d) => {
      d.currentProfile = "a";
    });
    await deadRecord(lockFileOf(store.file));
    await store.update((d) => {
      d.currentProfile = "b";
    });
    expect((await store.read()).currentProfile).toBe("b");
    expect(existsSync(lockFileOf(store.file))).toBe(false);
  });

  it("a sandbox data dir: in use → exit 9 with the same words as before; a killed holder's lock is taken over", async () => {
    const dataDir = join(tempDir(), "data");
    const release = await lockDataDir(dataDir, { wait: false });
    const err = await refusal(lockDataDir(dataDir, { wait: false }));
    expect(err.message).toBe(
      `The sandbox data in ${dataDir} is in use by another command or a running "sandbox start".`,
    );
    expect(err.hint).toBe("Stop the other sandbox, or use another --data-dir.");
    await release();
    await deadRecord(lockFileOf(join(dataDir, "embedded")));
    const again = await lockDataDir(dataDir, { wait: false });
    await again();
    expect(existsSync(lockFileOf(join(dataDir, "embedded")))).toBe(false);
  });
});
