// The lock between processes (src/io/file-lock.ts, through the run lock of src/export/run-lock.ts):
// held by the OS, so a second process is refused while the first lives, and a process killed with
// SIGKILL frees it at once; a holder on another host is named, never taken over; holders never
// overlap, also when a releaser removes the file under a contender (the unlink race), on the work
// filesystem and on tmpfs. Real processes, real files; every wait is on a line a process prints.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Busy, takeLock } from "../../src/io/file-lock.js";
import {
  lockBeside,
  lockFileOf,
  readOwner,
  takeRunLock,
  takeRunLockFile,
} from "../../src/export/run-lock.js";
import { lockStore } from "../../src/webhooks/event-store.js";
import { bundleWorker, lockRefusal } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/sandbox.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
let buildDir: string;
let worker: string;
const children: ChildProcessWithoutNullStreams[] = [];

beforeAll(async () => {
  ({ worker, dir: buildDir } = await bundleWorker("test/export/lock-worker.ts", "partner-cli-lock-test"));
});
afterAll(() => {
  for (const p of children) p.kill("SIGKILL");
  if (buildDir) rmSync(buildDir, { recursive: true, force: true });
});

interface Worker {
  proc: ChildProcessWithoutNullStreams;
  /** The first line it prints ("held", "refused ...", "done"), or "exited <code>". */
  said: Promise<string>;
  exited: Promise<number | null>;
}

function startWorker(args: string[], env: Record<string, string> = {}): Worker {
  const proc = spawn(process.execPath, [worker, ...args], { env: { ...process.env, ...env } });
  children.push(proc);
  let out = "";
  let err = "";
  proc.stderr.on("data", (d) => {
    err += d;
  });
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
  const said = new Promise<string>((resolve) => {
    proc.stdout.on("data", (d) => {
      out += d;
      if (out.includes("\n")) resolve(out.slice(0, out.indexOf("\n")));
    });
    void exited.then((code) => resolve(out.trim() || `exited ${code} ${err}`));
  });
  return { proc, said, exited };
}

async function kill(w: Worker): Promise<void> {
  w.proc.kill("SIGKILL");
  await w.exited;
}

const refusal = lockRefusal;

describe("two processes", () => {
  it("the second is refused (exit 9) naming pid, host and since; SIGKILL frees the lock at once", async () => {
    const path = join(tempDir(), "locks", "redemptions-a");
    const file = lockFileOf(path);
    const first = startWorker(["hold", file]);
    expect(await first.said).toBe("held");
    const second = startWorker(["hold", file]);
    const said = await second.said;
    expect(await second.exited).toBe(9);
    expect(said).toMatch(
      new RegExp(
        `^refused LockedError The thing is in use by another partner-cli run \\(pid ${first.proc.pid}, on host ${hostname()}, since \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\)\\.$`,
      ),
    );
    // This process too, through the run lock and its hint.
    const err = await refusal(takeRunLock(path, 'Export cursor "a"'));
    expect(err.message).toContain(
      `Export cursor "a" is in use by another partner-cli run (pid ${first.proc.pid},`,
    );
    expect(err.hint).toMatch(/^Two runs would write the same rows twice/);

    await kill(first);
    // The killed holder's file is still there, with its record; the OS released its lock.
    expect(readOwner(file)).toMatchObject({ pid: first.proc.pid, host: hostname(), what: "The thing" });
    const third = startWorker(["hold", file]);
    expect(await third.said).toBe("held");
    expect(readOwner(file)).toMatchObject({ pid: third.proc.pid });
    await kill(third);
    const mine = await takeRunLock(path, 'Export cursor "a"');
    await mine.release();
    expect(existsSync(file)).toBe(false);
  });

  it("a holder on another host is named and never taken over", async () => {
    const file = join(tempDir(), ".out.csv.lock");
    const holder = startWorker(["hold", file], { LOCK_WORKER_HOST: "build-2" });
    expect(await holder.said).toBe("held");
    let busy: Busy | undefined;
    const sleeps: number[] = [];
    const clock = { sleep: async (ms: number) => void sleeps.push(ms) };
    await expect(
      takeLock(file, {
        what: "x",
        wait: 30,
        clock,
        refuse: (b) => {
          busy = b;
          return new Error("refused");
        },
      }),
    ).rejects.toThrow("refused");
    expect(busy).toMatchObject({ state: "elsewhere", owner: { pid: holder.proc.pid, host: "build-2" } });
    const err = await refusal(takeLock(file, { what: "The output file out.csv" }));
    expect(err.message).toMatch(
      new RegExp(
        `^The output file out\\.csv is in use by another partner-cli run \\(pid ${holder.proc.pid}, on host build-2, since .*\\)\\. The lock is released when that process ends`,
      ),
    );
    expect(err.message).toContain("never taken over from here");
    expect(readOwner(file)).toMatchObject({ pid: holder.proc.pid, host: "build-2" });
    await kill(holder);
    const mine = await takeLock(file, { what: "x" });
    await mine.release();
  });

  it("lockBeside: one lock for the destination, whichever config dir the runs use", async () => {
    const out = join(tempDir(), "out.csv");
    expect(lockBeside(out)).toBe(join(out, "..", ".out.csv.lock"));
    const holder = startWorker(["hold", lockBeside(out)]);
    expect(await holder.said).toBe("held");
    const err = await refusal(takeRunLockFile(lockBeside(out), `The output file ${out}`));
    expect(err.message).toContain(`(pid ${holder.proc.pid}, on host ${hostname()}, since `);
    await kill(holder);
  });

  it("the event store's append lock: a live holder makes the append wait, then fail naming it", async () => {
    const store = join(tempDir(), "events.ndjson");
    const holder = startWorker(["hold", `${store}.lock`]);
    expect(await holder.said).toBe("held");
    await expect(lockStore(store, 200)).rejects.toThrow(
      `the event store ${store} stayed locked by pid ${holder.proc.pid} on host ${hostname()} for 0.2 s`,
    );
    await kill(holder);
    const release = await lockStore(store, 1_000);
    await release();
    expect(existsSync(`${store}.lock`)).toBe(false);
  });
});

/** Checks that the log is a run of "begin P" / "end P" pairs: no two holders ever overlapped. */
function expectNoOverlap(log: string, pids: number[], rounds: number): void {
  const lines = readFileSync(log, "utf8").trimEnd().split("\n");
  expect(lines).toHaveLength(pids.length * rounds * 2);
  for (let i = 0; i < lines.length; i += 2) {
    const begin = lines[i]!;
    if (lines[i + 1] !== begin.replace("begin", "end") || !begin.startsWith("begin "))
      expect.fail(`holders overlapped at line ${i + 1}: ${lines.slice(i, i + 4).join(" | ")}`);
  }
  for (const pid of pids) expect(lines.filter((l) => l === `begin ${pid}`)).toHaveLength(rounds);
}

const shm = "/dev/shm";
const onTmpfs = existsSync(shm) && statfsSync(shm).type === 0x01021994;

// PARTNER_TEST_LOCK_DIRS (directories separated by ":") runs the stress test on more filesystems
// too: an NFS or SMB mount, overlayfs, FUSE.
const more = (process.env.PARTNER_TEST_LOCK_DIRS ?? "").split(":").filter(Boolean);

describe.each([
  { fs: "the work filesystem", base: () => mkdtempSync(join(ROOT, "node_modules/.cache/partner-cli-lock-")) },
  { fs: "tmpfs (/dev/shm)", base: () => mkdtempSync(join(shm, "partner-cli-lock-")), skip: !onTmpfs },
  ...more.map((dir) => ({ fs: dir, base: () => mkdtempSync(join(dir, "partner-cli-lock-")) })),
])("stress on $fs", ({ base, skip }) => {
  it.skipIf(skip)(
    "4 processes x 100 take/release rounds: no two holders ever overlap",
    {
      timeout: 120_000,
    },
    async () => {
      const dir = base();
      try {
        const file = join(dir, ".shared.log.lock");
        const log = join(dir, "shared.log");
        writeFileSync(log, "");
        const rounds = 100;
        const startAt = String(Date.now() + 1_000);
        const workers = [1, 2, 3, 4].map(() => startWorker(["loop", file, log, String(rounds), startAt]));
        for (const w of workers) expect(await w.said).toBe("done");
        expectNoOverlap(
          log,
          workers.map((w) => w.proc.pid!),
          rounds,
        );
        expect(existsSync(file)).toBe(false);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
