// The one duration grammar (src/spec/duration.ts: CLI flags and the sandbox's clock control) and the
// one boolean grammar (src/spec/boolean.ts: --active), with the CLI's parsers built on them.
import { InvalidArgumentError } from "commander";
import { describe, expect, it } from "vitest";
import { parseBoolArg, parseDuration } from "../../src/cli/define.js";
import { durationMs } from "../../src/sandbox/handlers/control.js";
import { parseBoolean } from "../../src/spec/boolean.js";
import { parseDurationMs } from "../../src/spec/duration.js";

describe("duration grammar", () => {
  it("units, decimals and sums, rounded to whole milliseconds", () => {
    expect(parseDurationMs("250ms")).toBe(250);
    expect(parseDurationMs("90s")).toBe(90_000);
    expect(parseDurationMs(" 5m ")).toBe(300_000);
    expect(parseDurationMs("1.5h")).toBe(5_400_000);
    expect(parseDurationMs("1h30m")).toBe(5_400_000);
    expect(parseDurationMs("1d2h3m4s5ms")).toBe(93_784_005);
    expect(parseDurationMs("0.0004s")).toBe(0);
  });

  it("refuses anything else", () => {
    for (const bad of ["", " ", "soon", "-1h", "1h 30m", "1h30", "h", "1x", "1mss", "1.h"])
      expect(parseDurationMs(bad), bad).toBeUndefined();
  });

  it("plain digits are milliseconds for the CLI, refused in the sandbox's request body", () => {
    expect(parseDurationMs("5000")).toBe(5000);
    expect(parseDurationMs("5000", { bareMilliseconds: false })).toBeUndefined();
    expect(parseDuration("5000")).toBe(5000);
    expect(() => durationMs("5000")).toThrow(/is not a duration like 90s, 5m, 2h or 1d/);
    expect(durationMs(5000)).toBe(5000);
    expect(durationMs("1h30m")).toBe(5_400_000);
  });

  it("the CLI's parser says what it expected", () => {
    expect(() => parseDuration("soon")).toThrow(InvalidArgumentError);
    expect(() => parseDuration("soon")).toThrow('expected a duration like "90s", "5m", "2h" or "1d"');
  });
});

describe("boolean grammar", () => {
  it("true/yes/1 and false/no/0, any case and spacing", () => {
    for (const t of ["true", "TRUE", " yes ", "1"]) expect(parseBoolean(t), t).toBe(true);
    for (const f of ["false", "No", "0"]) expect(parseBoolean(f), f).toBe(false);
    for (const x of ["", "maybe", "y", "on", "2"]) expect(parseBoolean(x), x).toBeUndefined();
  });

  it("the CLI's parser refuses anything else", () => {
    expect(parseBoolArg("Yes")).toBe(true);
    expect(() => parseBoolArg("maybe")).toThrow("expected true or false");
  });
});
