// The one lock implementation (src/io/file-lock.ts) in one process: its options (wait, the clock,
// refuse), the lock file and its record, assertHeld and release, lockBeside, and the locks built on
// it (the config store's, a sandbox data dir's). Between processes: test/export/run-lock.test.ts.
import { closeSync, existsSync, openSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { ConfigStore } from "../../src/config/store.js";
import { LockedError } from "../../src/errors.js";
import { lockBeside, lockFileOf, readOwner, takeLock, withLock } from "../../src/io/file-lock.js";
import { exitCodeFor } from "../../src/main.js";
import { lockDataDir } from "../../src/sandbox/embedded.js";
import { lockRefusal } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/sandbox.js";

/**
 * What a process killed while holding a lock leaves: its lock file with its record, and no lock
 * (the OS released it with the process).
 */
async function leftByKilledProcess(file: string): Promise<void> {
  const p = execa("node", ["-e", ""]);
  const pid = p.pid!;
  await p;
  writeFileSync(file, `${JSON.stringify({ pid, host: hostname(), since: "2026-01-01T00:00:00Z" })}\n`);
}

const refusal = lockRefusal;

function thrown(fn: () => void): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe("takeLock", () => {
  it("the lock file: created 0600, holding the owner's record; removed by release", async () => {
    const file = join(tempDir(), "locks", "x.lock.json");
    const lock = await takeLock(file, { what: "The thing" });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(file, "..")).mode & 0o777).toBe(0o700);
    expect(readOwner(file)).toEqual({
      pid: process.pid,
      host: hostname(),
      since: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      what: "The thing",
    });
    await lock.release();
    expect(existsSync(file)).toBe(false);
    await lock.release();
  });

  it("wait: 0 refuses a held lock at once (exit 9, naming pid, host and since)", async () => {
    const file = join(tempDir(), "x.lock.json");
    const first = await takeLock(file, { what: "The thing" });
    const err = await refusal(takeLock(file, { what: "The thing" }));
    expect(err.message).toBe(
      `The thing is in use by another partner-cli run (pid ${process.pid}, on host ${hostname()}, since ${readOwner(file)!.since}).`,
    );
    expect(err.hint).toBe("Wait for the other run to finish, then run again.");
    const hinted = await refusal(takeLock(file, { what: "The thing", hint: "Do this." }));
    expect(hinted.hint).toBe("Do this.");
    await first.release();
  });

  it("a wait outlasts a hold that ends while the waiter sleeps (on the caller's clock)", async () => {
    const file = join(tempDir(), "x.lock.json");
    const first = await takeLock(file, { what: "The thing" });
    const sleeps: number[] = [];
    const clock = {
      sleep: async (ms: number) => {
        sleeps.push(ms);
        if (sleeps.length === 3) await first.release();
      },
    };
    const second = await takeLock(file, { what: "The thing", wait: 60_000, clock });
    expect(sleeps).toEqual([2, 4, 8]);
    second.assertHeld();
    expect(readOwner(file)).toMatchObject({ pid: process.pid });
    await second.release();
  });

  it("a wait that ends: the refusal comes after it, with growing pauses of 1-20 ms", async () => {
    const file = join(tempDir(), "x.lock.json");
    const held = await takeLock(file, { what: "The thing" });
    const sleeps: number[] = [];
    const clock = { sleep: async (ms: number) => void sleeps.push(ms) };
    const err = await refusal(takeLock(file, { what: "The thing", wait: 50, clock }));
    expect(err.message).toMatch(/in use by another partner-cli run/);
    expect(sleeps.slice(0, 5)).toEqual([2, 4, 8, 16, 20]);
    expect(sleeps.every((ms) => ms >= 1 && ms <= 20)).toBe(true);
    await held.release();
  });

  it("refuse: the caller's error, given who holds the lock", async () => {
    const file = join(tempDir(), "x.lock.json");
    const held = await takeLock(file, { what: "The thing" });
    await expect(
      takeLock(file, {
        what: "The thing",
        refuse: (b) => new Error(`${b.state} ${b.owner?.pid} ${b.lockFile === file}`),
      }),
    ).rejects.toThrow(`alive ${process.pid} true`);
    await held.release();
  });

  it("a lock file left by a killed process (no lock on it) is taken at once, whatever it holds", async () => {
    const dir = tempDir();
    const file = join(dir, "x.lock.json");
    await leftByKilledProcess(file);
    const lock = await takeLock(file, { what: "The thing" });
    expect(readOwner(file)).toMatchObject({ pid: process.pid, what: "The thing" });
    await lock.release();
    for (const junk of ["", "not a record\n", "4242"]) {
      writeFileSync(file, junk);
      const again = await takeLock(file, { what: "The thing" });
      expect(readOwner(file)).toMatchObject({ pid: process.pid });
      await again.release();
    }
  });

  it("the addon loaded straight from its prebuilds/ and the package's entry lock the same byte", async () => {
    const file = join(tempDir(), "x.lock.json");
    const lock = await takeLock(file, { what: "The thing" });
    const pkg = await import("fs-native-extensions");
    const fd = openSync(file, "r+");
    expect(pkg.tryLock(fd, 2 ** 30, 1)).toBe(false);
    await lock.release();
    closeSync(fd);
    // Held through the package by a process that writes no record: refused all the same.
    const other = openSync(file, "wx");
    try {
      expect(pkg.tryLock(other, 2 ** 30, 1)).toBe(true);
      const err = await refusal(takeLock(file, { what: "The thing" }));
      expect(err.message).toBe(
        `The thing is in use by another process: ${file} is locked, and its holder has not said who it is.`,
      );
    } finally {
      closeSync(other);
    }
  });

  it("withLock releases after a throw", async () => {
    const file = join(tempDir(), "x.lock.json");
    await expect(
      withLock(file, { what: "The thing" }, () => Promise.reject(new Error("boom"))),
    ).rejects.toThrow("boom");
    expect(existsSync(file)).toBe(false);
    expect(await withLock(file, { what: "The thing" }, () => 42)).toBe(42);
  });
});

describe("assertHeld", () => {
  it("passes while the lock file is the one locked; removed or replaced: LockedError (exit 9)", async () => {
    const file = join(tempDir(), "x.lock.json");
    const lock = await takeLock(file, { what: 'Export cursor "x"' });
    lock.assertHeld();
    unlinkSync(file);
    const err = thrown(() => lock.assertHeld());
    expect(err).toBeInstanceOf(LockedError);
    expect(exitCodeFor(err)).toBe(9);
    expect((err as Error).message).toBe(
      `Export cursor "x": this run's lock was taken (its lock file was removed); stopping before writing anything more.`,
    );
    // Someone else's lock under that name now: named, and release leaves it alone.
    const other = await takeLock(file, { what: "Another" });
    expect(() => lock.assertHeld()).toThrow(
      `Export cursor "x": this run's lock was taken by another run (pid ${process.pid}, on host ${hostname()}, since `,
    );
    await lock.release();
    expect(readOwner(file)).toMatchObject({ what: "Another" });
    other.assertHeld();
    await other.release();
  });

  it("a file moved over the lock file: replaced; after release: not held either", async () => {
    const dir = tempDir();
    const file = join(dir, "x.lock.json");
    const lock = await takeLock(file, { what: "z" });
    writeFileSync(join(dir, "other"), "");
    renameSync(join(dir, "other"), file);
    expect(() => lock.assertHeld()).toThrow("z: this run's lock was taken (its lock file was replaced)");
    await lock.release();
    expect(existsSync(file)).toBe(true);

    const again = await takeLock(join(dir, "y.lock.json"), { what: "y" });
    await again.release();
    expect(() => again.assertHeld()).toThrow("y: this run's lock was released");
  });
});

describe("lockBeside", () => {
  it("names a hidden file beside the destination, in the same directory", () => {
    expect(lockBeside("/data/exports/out.csv")).toBe("/data/exports/.out.csv.lock");
    expect(lockBeside("out.csv")).toBe(".out.csv.lock");
    expect(lockBeside("sub/events.ndjson")).toBe(join("sub", ".events.ndjson.lock"));
    expect(lockBeside("/data/copy.db")).toBe("/data/.copy.db.lock");
  });

  it("is a lock like any other: a second taker is refused", async () => {
    const out = join(tempDir(), "out.csv");
    const first = await takeLock(lockBeside(out), { what: `The output file ${out}` });
    await refusal(takeLock(lockBeside(out), { what: `The output file ${out}` }));
    await first.release();
    expect(existsSync(lockBeside(out))).toBe(false);
  });
});

describe("the locks built on it", () => {
  it("the config store: a lock file left by a killed process does not hold an update up", async () => {
    const store = new ConfigStore(tempDir());
    await store.update((d) => {
      d.currentProfile = "a";
    });
    await leftByKilledProcess(lockFileOf(store.file));
    await store.update((d) => {
      d.currentProfile = "b";
    });
    expect((await store.read()).currentProfile).toBe("b");
    expect(existsSync(lockFileOf(store.file))).toBe(false);
  });

  it("a sandbox data dir: in use → exit 9 with the same words as before; a killed holder's file is no obstacle", async () => {
    const dataDir = join(tempDir(), "data");
    const release = await lockDataDir(dataDir, { wait: false });
    const err = await refusal(lockDataDir(dataDir, { wait: false }));
    expect(err.message).toBe(
      `The sandbox data in ${dataDir} is in use by another command or a running "sandbox start".`,
    );
    expect(err.hint).toBe("Stop the other sandbox, or use another --data-dir.");
    await release();
    await leftByKilledProcess(lockFileOf(join(dataDir, "embedded")));
    const again = await lockDataDir(dataDir, { wait: false });
    await again();
    expect(existsSync(lockFileOf(join(dataDir, "embedded")))).toBe(false);
  });
});
