// What a checkpoint's file state proves, without a network: the running digest, the intent record's
// proof of an unfinished write, and the checks of a file against what was committed.
import { randomBytes } from "node:crypto";
import { appendFileSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  BLOCK,
  CHUNK,
  ContentDigest,
  type FileState,
  identityOf,
  inspectOutput,
  intentExplains,
  intentFor,
} from "../../src/export/durable-output.js";
import { tempDir } from "../helpers/sandbox.js";

function digestOf(buf: Buffer, pieces: number[] = [buf.length]): ContentDigest {
  const d = new ContentDigest();
  let at = 0;
  for (const p of pieces) {
    d.update(buf.subarray(at, at + p));
    at += p;
  }
  d.update(buf.subarray(at));
  return d;
}

/** A file and the state a commit of all of it would have saved. */
async function committedFile(content: Buffer): Promise<{ path: string; state: FileState }> {
  const path = join(tempDir(), "f.csv");
  writeFileSync(path, content);
  const st = statSync(path, { bigint: true });
  return { path, state: { path, format: "csv", ...digestOf(content).snapshot(), ...identityOf(st) } };
}

describe("ContentDigest", () => {
  it("is the same whatever the pieces, and resumes from a snapshot and the first and last blocks", () => {
    const content = randomBytes(3 * BLOCK + 123);
    const whole = digestOf(content).snapshot();
    expect(digestOf(content, [1, 7, BLOCK, 5000, BLOCK * 2]).snapshot()).toEqual(whole);
    const cut = 2 * BLOCK + 17;
    const first = digestOf(content.subarray(0, cut)).snapshot();
    const resumed = ContentDigest.resume(
      first,
      content.subarray(0, BLOCK),
      content.subarray(cut - BLOCK, cut),
    );
    resumed.update(content.subarray(cut));
    expect(resumed.snapshot()).toEqual(whole);
  });
});

describe("the intent record", () => {
  const start = 5000; // not aligned: the first piece runs to the next 4 KiB offset
  const block = randomBytes(3 * CHUNK + 777);
  const intent = intentFor(start, block);

  it("explains exactly the prefixes that end on a 4 KiB file offset or at the block's end", () => {
    for (let len = 1; len <= block.length; len++) {
      const end = start + len;
      const boundary = end % CHUNK === 0 || len === block.length;
      expect(intentExplains(intent, start, block.subarray(0, len)), `prefix of ${len}`).toBe(boundary);
    }
  });

  it("does not explain a changed byte, a longer tail, another start, or no intent", () => {
    const aligned = CHUNK * 2 - start;
    const changed = Buffer.from(block.subarray(0, aligned));
    changed[aligned - 1] = changed[aligned - 1]! ^ 1;
    expect(intentExplains(intent, start, changed)).toBe(false);
    expect(intentExplains(intent, start, Buffer.concat([block, Buffer.from("x")]))).toBe(false);
    expect(intentExplains(intent, start + 1, block.subarray(1))).toBe(false);
    expect(intentExplains(null, start, block)).toBe(false);
  });
});

describe("inspectOutput", () => {
  const rows = Buffer.from(
    Array.from({ length: 15000 }, (_, i) => `${String(i).padStart(6, "0")},row ${i}\n`).join(""),
  );

  it("an untouched file is intact; the committed content plus a recorded write's prefix is a tail to cut", async () => {
    const { path, state } = await committedFile(rows);
    expect((await inspectOutput(path, state)).kind).toBe("intact");
    const next = Buffer.from("000001,next\n".repeat(1000));
    const withIntent = { ...state, intent: intentFor(rows.length, next) };
    const toBoundary = CHUNK - (rows.length % CHUNK);
    appendFileSync(path, next.subarray(0, toBoundary));
    const v = await inspectOutput(path, withIntent);
    expect(v).toMatchObject({ kind: "tail", extra: toBoundary });
  });

  it("an edit in the middle that keeps the length is caught by the CRC of the whole content, even with mtime set back", async () => {
    const { path, state } = await committedFile(rows);
    const before = statSync(path);
    const edited = Buffer.from(rows);
    const mid = Math.floor(rows.length / 2); // outside both 64 KiB blocks
    expect(mid > BLOCK && mid < rows.length - BLOCK).toBe(true);
    edited[mid] = edited[mid] === 0x31 ? 0x32 : 0x31;
    writeFileSync(path, edited);
    utimesSync(path, before.atime, before.mtime);
    const v = await inspectOutput(path, state);
    expect(v.kind).toBe("changed");
    expect(v.kind === "changed" && v.reasons).toEqual(["was changed (same length, different content)"]);
    expect(readFileSync(path).equals(edited)).toBe(true);
  });

  it("no file and nothing committed is absent; a file nothing committed to is not empty", async () => {
    const path = join(tempDir(), "none.csv");
    expect((await inspectOutput(path, undefined)).kind).toBe("absent");
    writeFileSync(path, "x\n");
    expect(await inspectOutput(path, undefined)).toMatchObject({
      kind: "changed",
      reasons: ["is not empty"],
    });
  });
});
