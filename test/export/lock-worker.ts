// A process that takes a lock for test/export/run-lock.test.ts (bundled by esbuild, then spawned):
//
//   hold <lockFile>                         prints "held" and holds until killed, or prints
//                                           "refused <name> <message>" and exits 9
//   loop <lockFile> <log> <rounds> <startAt> from startAt (ms since the epoch) takes and releases the
//                                           lock `rounds` times, appending "begin <pid>" and
//                                           "end <pid>" to `log` while holding it; prints "done"
//
// LOCK_WORKER_HOST pretends to run on that host (os.hostname), as a process on another machine
// sharing the directory would. In loop mode the moments that matter to the unlink race (between a
// contender's open and its lock call, between a releaser's unlink and its unlock) are widened by a
// random 0-1 ms and a contender retries after 1 ms, so contenders really do lock the file a
// releaser just removed (and must notice it).
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import os from "node:os";

const [mode, lockFile = "", log = "", rounds = "0", startAt = "0"] = process.argv.slice(2);

function spin(maxMs: number): void {
  const until = Date.now() + Math.random() * maxMs;
  while (Date.now() < until) {}
}

const host = process.env.LOCK_WORKER_HOST;
if (host) os.hostname = () => host;
if (mode === "loop") {
  const { openSync, unlinkSync } = fs;
  fs.openSync = ((...args: Parameters<typeof openSync>) => {
    const fd = openSync(...args);
    if (String(args[0]) === lockFile) spin(1);
    return fd;
  }) as typeof openSync;
  fs.unlinkSync = (path: fs.PathLike) => {
    unlinkSync(path);
    if (String(path) === lockFile) spin(1);
  };
}
syncBuiltinESMExports();

const { takeLock } = await import("../../src/io/file-lock.js");

if (mode === "hold") {
  try {
    await takeLock(lockFile, { what: "The thing" });
    process.stdout.write("held\n");
    setInterval(() => {}, 60_000);
  } catch (err) {
    const e = err as Error;
    process.stdout.write(`refused ${e.name} ${e.message}\n`);
    process.exit(9);
  }
} else if (mode === "loop") {
  const nextTick = { sleep: () => new Promise<void>((resolve) => setTimeout(resolve, 1)) };
  while (Date.now() < Number(startAt)) {}
  for (let i = 0; i < Number(rounds); i++) {
    const lock = await takeLock(lockFile, { what: "The log", wait: 120_000, clock: nextTick });
    fs.appendFileSync(log, `begin ${process.pid}\n`);
    spin(1);
    lock.assertHeld();
    fs.appendFileSync(log, `end ${process.pid}\n`);
    await lock.release();
  }
  process.stdout.write("done\n");
}
