// Colors by convention: --no-color, NO_COLOR, FORCE_COLOR, CLICOLOR, CLICOLOR_FORCE and the terminal's
// own hasColors(). Unit tests of the one rule (colorEnabled) and of the Io that applies it.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { colorEnabled, style } from "../../src/io/colors.js";
import { createIo } from "../../src/io/io.js";

const tty = { stdoutIsTTY: true, stderrIsTTY: true };
const piped = { stdoutIsTTY: false, stderrIsTTY: false };

describe("colorEnabled", () => {
  const cases: [string, NodeJS.ProcessEnv, typeof tty, boolean, boolean][] = [
    // name, env, streams, --no-color, expected
    ["a terminal, nothing set", {}, tty, false, true],
    ["piped, nothing set", {}, piped, false, false],
    ["stdout a terminal, stderr piped", {}, { stdoutIsTTY: true, stderrIsTTY: false }, false, false],
    ["--no-color", {}, tty, true, false],
    ["NO_COLOR=1", { NO_COLOR: "1" }, tty, false, false],
    ["NO_COLOR empty (not set, per no-color.org)", { NO_COLOR: "" }, tty, false, true],
    ["CLICOLOR=0", { CLICOLOR: "0" }, tty, false, false],
    ["CLICOLOR=1 at a terminal", { CLICOLOR: "1" }, tty, false, true],
    ["CLICOLOR=1 piped (does not force)", { CLICOLOR: "1" }, piped, false, false],
    ["CLICOLOR_FORCE=1 piped", { CLICOLOR_FORCE: "1" }, piped, false, true],
    ["CLICOLOR_FORCE=0 piped", { CLICOLOR_FORCE: "0" }, piped, false, false],
    ["CLICOLOR_FORCE empty piped", { CLICOLOR_FORCE: "" }, piped, false, false],
    ["FORCE_COLOR=1 piped", { FORCE_COLOR: "1" }, piped, false, true],
    ["FORCE_COLOR=3 piped", { FORCE_COLOR: "3" }, piped, false, true],
    ["FORCE_COLOR empty piped (Node: force)", { FORCE_COLOR: "" }, piped, false, true],
    ["FORCE_COLOR=0 at a terminal", { FORCE_COLOR: "0" }, tty, false, false],
    ["FORCE_COLOR=false at a terminal", { FORCE_COLOR: "false" }, tty, false, false],
    ["FORCE_COLOR=1 beats NO_COLOR", { FORCE_COLOR: "1", NO_COLOR: "1" }, piped, false, true],
    ["CLICOLOR_FORCE=1 beats CLICOLOR=0", { CLICOLOR_FORCE: "1", CLICOLOR: "0" }, piped, false, true],
    ["--no-color beats FORCE_COLOR", { FORCE_COLOR: "1" }, tty, true, false],
    ["--no-color beats CLICOLOR_FORCE", { CLICOLOR_FORCE: "1" }, piped, true, false],
  ];
  for (const [name, env, streams, noColorFlag, expected] of cases) {
    it(name, () => {
      expect(colorEnabled({ env, noColorFlag, ...streams })).toBe(expected);
    });
  }

  it("at a terminal, the terminal's hasColors() decides (TERM=dumb says no); forcing does not ask it", () => {
    expect(colorEnabled({ env: {}, noColorFlag: false, ...tty, hasColors: () => false })).toBe(false);
    expect(colorEnabled({ env: {}, noColorFlag: false, ...tty, hasColors: () => true })).toBe(true);
    expect(
      colorEnabled({ env: { FORCE_COLOR: "1" }, noColorFlag: false, ...tty, hasColors: () => false }),
    ).toBe(true);
  });
});

describe("the Io applies it", () => {
  const streams = (isTTY: boolean) => ({
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    stdin: new PassThrough(),
    stdoutIsTTY: isTTY,
    stderrIsTTY: isTTY,
    stdinIsTTY: isTTY,
  });

  it("styles text only when colors are on", () => {
    const forced = createIo(streams(false), { json: false, noColor: false, env: { CLICOLOR_FORCE: "1" } });
    expect(forced.color).toBe(true);
    expect(style(forced, "bold", "x")).toBe("\u001b[1mx\u001b[22m");
    const off = createIo(streams(true), { json: false, noColor: false, env: { NO_COLOR: "1" } });
    expect(off.color).toBe(false);
    expect(style(off, "bold", "x")).toBe("x");
  });

  it("asks the stdout terminal stream's hasColors() with the run's environment", () => {
    const s = streams(true);
    const seen: unknown[] = [];
    (s.stdout as unknown as { hasColors: (env: unknown) => boolean }).hasColors = (env) => {
      seen.push(env);
      return false;
    };
    const env = { TERM: "dumb" };
    expect(createIo(s, { json: false, noColor: false, env }).color).toBe(false);
    expect(seen).toEqual([env]);
  });
});
