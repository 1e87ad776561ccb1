// No fixed sleeps in tests: a test waits on a condition (test/helpers/wait.ts `until`, an engine's
// idle signal such as the delivery engine's quiet()) or moves time with the injected clock. This grep
// fails on a timer used as a wait anywhere in test/: setTimeout, a sleep( or delay( call, or
// timers/promises. The allow-list below holds the justified uses, each with its reason; an entry
// that no longer matches anything fails too, so the list stays true.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const SELF = "test/harness/no-sleeps.test.ts";

/** What counts as a fixed wait. */
const WAITS: [RegExp, string][] = [
  [/\bsetTimeout\s*\(/, "setTimeout"],
  [/(?<![.\w])sleep\s*\(/, "sleep("],
  [/(?<![.\w])delay\s*\(/, "delay("],
  [/timers\/promises/, "timers/promises"],
];

/** Justified uses: the file, a piece of the line, and why it is not a fixed wait in a test. */
const ALLOWED: { file: string; line: string; reason: string }[] = [
  {
    file: "test/helpers/wait.ts",
    line: "setTimeout(res, everyMs)",
    reason: "the pause between two probes of `until`, the one condition wait",
  },
  {
    file: "test/helpers/wait.ts",
    line: "setTimeout(res, Math.floor(Math.random() * maxMs))",
    reason: "randomMoment: kill tests interrupt a run at a random moment on purpose",
  },
  {
    file: "test/sandbox/webhooks-receiver.ts",
    line: "setTimeout(answer, reply.delayMs)",
    reason: "a receiver made slow on purpose (the delivery timeout and ordering tests)",
  },
  {
    file: "test/export/lock-worker.ts",
    line: "setTimeout(resolve, 1)",
    reason: "the Clock handed to takeLock in a contention worker (the code under test waits on it)",
  },
];

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === "fixtures" ? [] : testFiles(p);
    return /\.(ts|mts|js|mjs)$/.test(e.name) ? [p] : [];
  });
}

it("no test waits on a fixed timer (setTimeout, sleep(, delay(, timers/promises) outside the allow-list", () => {
  const found: string[] = [];
  const used = new Set<number>();
  for (const path of testFiles(join(root, "test"))) {
    const file = relative(root, path).split("\\").join("/");
    if (file === SELF) continue;
    readFileSync(path, "utf8")
      .split("\n")
      .forEach((text, i) => {
        const hit = WAITS.find(([re]) => re.test(text));
        if (!hit) return;
        const allowed = ALLOWED.findIndex((a) => a.file === file && text.includes(a.line));
        if (allowed >= 0) used.add(allowed);
        else found.push(`${file}:${i + 1}: ${hit[1]}: ${text.trim()}`);
      });
  }
  expect(
    found,
    `fixed waits (wait on a condition instead, or add to ALLOWED with a reason):\n${found.join("\n")}`,
  ).toEqual([]);
  const stale = ALLOWED.filter((_, i) => !used.has(i)).map((a) => `${a.file}: ${a.line}`);
  expect(stale, "allow-list entries that match nothing any more").toEqual([]);
});

it("the grep sees each kind of fixed wait (checked on made-up lines)", () => {
  const flagged = (text: string) => WAITS.some(([re]) => re.test(text));
  for (const text of [
    "await new Promise((r) => setTimeout(r, 100));",
    "await sleep(150);",
    "await delay(20);",
    'import { setTimeout } from "node:timers/promises";',
  ])
    expect(flagged(text), text).toBe(true);
  for (const text of ["await ctx.clock.sleep(interval, ctx.signal);", "clock: { sleep: untilAborted }"])
    expect(flagged(text), text).toBe(false);
});
