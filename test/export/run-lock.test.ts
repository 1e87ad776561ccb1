// The run lock (src/export/run-lock.ts): taken over only when its owner process is gone, never
// because it is old; an owner record survives pid reuse; a takeover race has exactly one winner;
// assertHeld notices a record that is no longer ours. Real processes, real files.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LockedError } from "../../src/errors.js";
import {
  lockFileOf,
  type OwnerRecord,
  ownRecord,
  ownerState,
  procStat,
  readOwner,
  takeRunLock,
} from "../../src/export/run-lock.js";
import { exitCodeFor } from "../../src/main.js";
import { lockStore } from "../../src/webhooks/event-store.js";
import { tempDir } from "../helpers/sandbox.js";

const linux = existsSync("/proc/self/stat");

/** The pid of a process that has exited and been reaped. */
async function deadPid(): Promise<number> {
  const p = execa("node", ["-e", ""]);
  const pid = p.pid!;
  await p;
  return pid;
}

/** A live process for the test to point records at; killed in afterAll. */
const live: { kill(): void }[] = [];
afterAll(() => {
  for (const p of live) p.kill();
});
function liveProcess(): number {
  const p = spawn("sleep", ["120"], { stdio: "ignore" });
  live.push(p);
  return p.pid!;
}

function record(o: Partial<OwnerRecord>): OwnerRecord {
  return { ...ownRecord(), ...o };
}

function writeRecord(file: string, r: OwnerRecord): void {
  writeFileSync(file, `${JSON.stringify(r)}\n`);
}

/** What `takeRunLock` did: "taken", or the LockedError it threw. */
async function attempt(
  path: string,
): Promise<{ taken: boolean; error?: LockedError; release(): Promise<void> }> {
  try {
    const lock = await takeRunLock(path, 'Export cursor "t"');
    return { taken: true, release: () => lock.release() };
  } catch (err) {
    if (!(err instanceof LockedError)) throw err;
    return { taken: false, error: err, release: async () => {} };
  }
}

describe("who owns a lock", () => {
  it("a held lock: a second taker gets LockedError (exit 9) naming the owner; after release it is free", async () => {
    const path = join(tempDir(), "locks", "redemptions-a");
    const first = await takeRunLock(path, 'Export cursor "a"');
    const second = await attempt(path);
    expect(second.taken).toBe(false);
    expect(exitCodeFor(second.error)).toBe(9);
    expect(second.error!.message).toMatch(
      new RegExp(
        `^Export cursor "t" is in use by another partner-cli run \\(pid ${process.pid}, since \\d{4}-`,
      ),
    );
    await first.release();
    const third = await attempt(path);
    expect(third.taken).toBe(true);
    await third.release();
    expect(existsSync(lockFileOf(path))).toBe(false);
  });

  it("a live owner keeps its lock however old the files look", async () => {
    const path = join(tempDir(), "redemptions-old");
    const pid = liveProcess();
    writeRecord(lockFileOf(path), record({ pid, start: procStat(pid)?.start, token: "aa".repeat(12) }));
    const past = new Date(Date.now() - 24 * 3600_000);
    utimesSync(lockFileOf(path), past, past);
    const r = await attempt(path);
    expect(r.taken).toBe(false);
    expect(r.error!.message).toContain(`(pid ${pid},`);
    expect(readOwner(lockFileOf(path))).toMatchObject({ kind: "record", record: { pid } });
  });

  it("a record naming a dead pid is taken over at once", async () => {
    const path = join(tempDir(), "redemptions-dead");
    const pid = await deadPid();
    writeRecord(lockFileOf(path), record({ pid, token: "bb".repeat(12) }));
    const r = await attempt(path);
    expect(r.taken).toBe(true);
    expect(readOwner(lockFileOf(path))).toMatchObject({ kind: "record", record: { pid: process.pid } });
    await r.release();
  });

  it.runIf(linux)("a live pid with another start time is a reused pid: taken over", async () => {
    const path = join(tempDir(), "redemptions-reused");
    const pid = liveProcess();
    const start = procStat(pid)!.start;
    writeRecord(lockFileOf(path), record({ pid, start: String(Number(start) - 1), token: "cc".repeat(12) }));
    const cur = readOwner(lockFileOf(path));
    expect(cur.kind === "record" && ownerState(cur.record)).toBe("dead");
    const r = await attempt(path);
    expect(r.taken).toBe(true);
    await r.release();
  });

  it.runIf(linux)(
    "a record from an earlier boot is a dead owner, even if its pid and start time match",
    async () => {
      const path = join(tempDir(), "redemptions-boot");
      const pid = liveProcess();
      writeRecord(
        lockFileOf(path),
        record({
          pid,
          start: procStat(pid)!.start,
          boot: "00000000-0000-4000-8000-000000000000",
          token: "dd".repeat(12),
        }),
      );
      const r = await attempt(path);
      expect(r.taken).toBe(true);
      await r.release();
    },
  );

  it("a record written on another host is never judged from here", async () => {
    const path = join(tempDir(), "redemptions-host");
    const pid = await deadPid();
    writeRecord(lockFileOf(path), record({ pid, host: `not-${hostname()}`, token: "ee".repeat(12) }));
    const r = await attempt(path);
    expect(r.taken).toBe(false);
    expect(r.error!.message).toContain(`on host not-${hostname()}`);
    expect(r.error!.hint).toContain(`remove ${lockFileOf(path)}`);
  });

  it("a file that is not an owner record is left alone, with a clear message", async () => {
    const path = join(tempDir(), "redemptions-junk");
    writeFileSync(lockFileOf(path), "not a record\n");
    const r = await attempt(path);
    expect(r.taken).toBe(false);
    expect(exitCodeFor(r.error)).toBe(9);
    expect(r.error!.message).toContain("which is not a partner-cli lock record");
    expect(readFileSync(lockFileOf(path), "utf8")).toBe("not a record\n");
  });

  it("a takeover left half-done by a process that died is finished by the next taker", async () => {
    const path = join(tempDir(), "redemptions-half");
    const deadOwner = record({ pid: await deadPid(), token: "ff".repeat(12) });
    writeRecord(lockFileOf(path), deadOwner);
    // A taker created the first marker, then died.
    writeRecord(
      `${lockFileOf(path)}.takeover-${deadOwner.token}-0`,
      record({ pid: await deadPid(), token: "12".repeat(12) }),
    );
    const r = await attempt(path);
    expect(r.taken).toBe(true);
    // The debris is gone: only our record is left.
    expect(readdirSync(join(path, ".."))).toEqual([`${"redemptions-half"}.lock.json`]);
    await r.release();
  });

  it("a takeover in progress by a live process is not raced", async () => {
    const path = join(tempDir(), "redemptions-busy");
    const deadOwner = record({ pid: await deadPid(), token: "34".repeat(12) });
    writeRecord(lockFileOf(path), deadOwner);
    const taker = liveProcess();
    writeRecord(
      `${lockFileOf(path)}.takeover-${deadOwner.token}-0`,
      record({ pid: taker, start: procStat(taker)?.start, token: "56".repeat(12) }),
    );
    const r = await attempt(path);
    expect(r.taken).toBe(false);
    expect(r.error!.message).toContain(`(pid ${taker},`);
    expect(readOwner(lockFileOf(path))).toMatchObject({ kind: "record", record: { token: deadOwner.token } });
  });
});

describe("assertHeld", () => {
  it("passes while the record is ours; after it was replaced or removed: LockedError (exit 9)", async () => {
    const path = join(tempDir(), "redemptions-assert");
    const lock = await takeRunLock(path, 'Export cursor "x"');
    lock.assertHeld();
    const other = record({ pid: liveProcess(), token: "78".repeat(12) });
    writeRecord(lockFileOf(path), other);
    let err: unknown;
    try {
      lock.assertHeld();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(LockedError);
    expect(exitCodeFor(err)).toBe(9);
    expect((err as Error).message).toBe(
      `Export cursor "x": this run's lock was taken by another run (pid ${other.pid}, since ${other.since}); stopping before writing anything more.`,
    );
    // Release never removes a record that is not ours.
    await lock.release();
    expect(readOwner(lockFileOf(path))).toMatchObject({ kind: "record", record: { token: other.token } });

    // After its own release, a lock is not held either.
    const again = await takeRunLock(join(tempDir(), "redemptions-assert2"), "y");
    again.assertHeld();
    await again.release();
    expect(() => again.assertHeld()).toThrow(LockedError);
  });

  it("after the record was removed by hand: LockedError", async () => {
    const path = join(tempDir(), "redemptions-removed");
    const lock = await takeRunLock(path, "z");
    writeFileSync(lockFileOf(path), "");
    expect(() => lock.assertHeld()).toThrow(/this run's lock was taken \(its lock file was overwritten\)/);
    await lock.release();
  });
});

describe("racing processes", () => {
  // A small program that takes the lock at an agreed moment, prints "won" and holds the lock until
  // killed, or prints "locked" and exits. It widens every race window on purpose: each read, link
  // and unlink of the lock's files waits a random 0-4 ms first (a plain race on 2 cores would
  // rarely interleave inside the few microseconds between reading a record and removing it).
  let worker: string;
  beforeAll(async () => {
    worker = join(tempDir(), "lock-worker.mjs");
    await build({
      stdin: {
        contents: `
          import fs from "node:fs";
          import { syncBuiltinESMExports } from "node:module";
          const [path, startAt] = process.argv.slice(2);
          const jitter = (fn) => (...args) => {
            if (String(args[0]).includes(path) || String(args[1] ?? "").includes(path)) {
              const until = Date.now() + Math.random() * 4;
              while (Date.now() < until) {}
            }
            return fn(...args);
          };
          for (const name of ["readFileSync", "linkSync", "unlinkSync"]) fs[name] = jitter(fs[name]);
          syncBuiltinESMExports();
          const { takeRunLock } = await import(${JSON.stringify(fileURLToPath(new URL("../../src/export/run-lock.ts", import.meta.url)))});
          while (Date.now() < Number(startAt)) {}
          try {
            await takeRunLock(path, "race");
            process.stdout.write("won\\n");
            setInterval(() => {}, 1000);
          } catch (err) {
            process.stdout.write(err.name === "LockedError" ? "locked\\n" : "error " + err.message + "\\n");
            process.exit(err.name === "LockedError" ? 9 : 1);
          }
        `,
        resolveDir: fileURLToPath(new URL(".", import.meta.url)),
        loader: "ts",
      },
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      outfile: worker,
      logLevel: "warning",
    });
  });

  /** Starts `n` workers that try at the same moment; resolves when each has said won or locked. */
  async function race(path: string, n: number) {
    const startAt = Date.now() + 1500;
    const procs = Array.from({ length: n }, () => spawn("node", [worker, path, String(startAt)]));
    const said = await Promise.all(
      procs.map(
        (p) =>
          new Promise<string>((resolve) => {
            let out = "";
            p.stdout.on("data", (d) => {
              out += d;
              if (out.includes("\n")) resolve(out.trim());
            });
            p.on("exit", () => resolve(out.trim() || "exited"));
          }),
      ),
    );
    return { procs, said };
  }

  it("8 processes racing for one dead lock: exactly one wins, five rounds in a row", {
    timeout: 60_000,
  }, async () => {
    const path = join(tempDir(), "locks", "redemptions-race");
    // Round 1 starts from a lock left by a dead process; each next round from the winner, killed.
    mkdirSync(join(path, ".."), { recursive: true });
    writeRecord(lockFileOf(path), record({ pid: await deadPid(), token: "9a".repeat(12) }));
    for (let round = 0; round < 5; round++) {
      const { procs, said } = await race(path, 8);
      expect(
        said.filter((s) => s === "won"),
        said.join(","),
      ).toHaveLength(1);
      expect(said.filter((s) => s === "locked")).toHaveLength(7);
      const winner = procs[said.indexOf("won")]!;
      expect(readOwner(lockFileOf(path))).toMatchObject({ kind: "record", record: { pid: winner.pid } });
      await new Promise<void>((resolve) => {
        winner.on("exit", () => resolve());
        winner.kill("SIGKILL");
      });
    }
    // No debris beyond the (dead) last record.
    expect(readdirSync(join(path, "..")).sort()).toEqual(["redemptions-race.lock.json"]);
  });
});

describe("the event store's append lock uses the same owner records", () => {
  it.runIf(linux)(
    "a lock left by a reused pid is taken over at once instead of blocking for the timeout",
    async () => {
      const store = join(tempDir(), "events.ndjson");
      const pid = liveProcess();
      writeRecord(`${store}.lock`, record({ pid, start: "1", token: "bc".repeat(12) }));
      const release = await lockStore(store, 1_000);
      expect(readOwner(`${store}.lock`)).toMatchObject({ kind: "record", record: { pid: process.pid } });
      await release();
      expect(existsSync(`${store}.lock`)).toBe(false);
    },
  );

  it("a bare pid left by an older version is understood: a dead one is taken over", async () => {
    const store = join(tempDir(), "events.ndjson");
    writeFileSync(`${store}.lock`, String(await deadPid()));
    const release = await lockStore(store, 1_000);
    await release();
    expect(existsSync(`${store}.lock`)).toBe(false);
  });

  it("a live holder makes the next append wait, then fail clearly after the timeout", async () => {
    const store = join(tempDir(), "events.ndjson");
    const pid = liveProcess();
    writeRecord(`${store}.lock`, record({ pid, start: procStat(pid)?.start, token: "cd".repeat(12) }));
    await expect(lockStore(store, 300)).rejects.toThrow(
      new RegExp(
        `the event store ${store.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} stayed locked by pid ${pid}`,
      ),
    );
  });
});
