// The running digest's snapshot, taken after every write, is the digest of all that was written so
// far (its first block's hash is kept once that block is complete; the last block's is recomputed).
import { createHash, randomBytes } from "node:crypto";
import { crc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import { BLOCK, ContentDigest } from "../../src/export/durable-output.js";

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

describe("ContentDigest snapshots between writes", () => {
  it("are the digest of the content so far, across the first 64 KiB filling up and after it", () => {
    const content = randomBytes(5 * BLOCK);
    const d = new ContentDigest();
    let at = 0;
    for (const n of [1, 10, 4000, 30_000, BLOCK - 34_011, 1, 5, BLOCK, 70_000, 7]) {
      d.update(content.subarray(at, at + n));
      at += n;
      const sofar = content.subarray(0, at);
      expect(d.snapshot()).toEqual({
        bytes: at,
        crc32: crc32(sofar),
        head: sha(sofar.subarray(0, BLOCK)),
        tail: sha(sofar.subarray(Math.max(0, at - BLOCK))),
      });
    }
  });
});
