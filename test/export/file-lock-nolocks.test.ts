// A filesystem that refuses locks (an NFS mount without its lock service, some FUSE and network
// filesystems): the lock call fails with ENOLCK, EOPNOTSUPP, ENOSYS or EINVAL. That is a ConfigError
// (exit 4) naming the file, not a crash and not a silent pass. The native module is replaced here
// by one that answers as such a filesystem does (and the direct load of the prebuilt addon is made
// to fail, so the package's entry, the fallback, is what answers).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { takeLock } from "../../src/io/file-lock.js";
import { exitCodeFor } from "../../src/main.js";
import { tempDir } from "../helpers/sandbox.js";

const answer = vi.hoisted(() => ({ code: "ENOLCK" }));

vi.mock("node:module", async (original) => ({
  ...(await original<typeof import("node:module")>()),
  createRequire: () => () => {
    throw new Error("no prebuilt addon here");
  },
}));

vi.mock("fs-native-extensions", () => ({
  tryLock: () => {
    throw Object.assign(new Error(`${answer.code}: the lock call failed`), { code: answer.code });
  },
  unlock: () => {},
}));

describe("a filesystem without locks", () => {
  it.each(["ENOLCK", "EOPNOTSUPP", "ENOSYS", "EINVAL"])(
    "%s: exit 4, naming the file and what to do",
    async (code) => {
      answer.code = code;
      const file = join(tempDir(), "nfs", ".out.csv.lock");
      const err = await takeLock(file, { what: "The output file /mnt/nfs/out.csv" }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ConfigError);
      expect(exitCodeFor(err)).toBe(4);
      expect((err as ConfigError).message).toBe(
        `The output file /mnt/nfs/out.csv cannot be locked: the filesystem of ${file} does not support file locks (${code}).`,
      );
      expect((err as ConfigError).hint).toBe(
        "Put it on a local disk (or a network filesystem with locking enabled), then run again.",
      );
      // The lock file is created before the lock call; nothing else is left open or locked.
      expect(existsSync(file)).toBe(true);
    },
  );

  it("any other failure of the lock call is not dressed up as one", async () => {
    answer.code = "EBADF";
    await expect(takeLock(join(tempDir(), "x.lock"), { what: "x" })).rejects.toThrow(
      "EBADF: the lock call failed",
    );
  });
});
