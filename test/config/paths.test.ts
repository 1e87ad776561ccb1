// Where files live, per platform: pure functions of the platform, the environment and what exists,
// so Windows and macOS are covered on any machine (CI runs Linux only).
import { describe, expect, it } from "vitest";
import { configDir, sandboxDataDir, stateDir } from "../../src/config/paths.js";

const none = () => false;
const only =
  (...paths: string[]) =>
  (p: string) =>
    paths.includes(p);

describe("config dir", () => {
  it("PARTNER_CLI_CONFIG_DIR wins everywhere", () => {
    expect(configDir({ PARTNER_CLI_CONFIG_DIR: "/x/cfg", HOME: "/home/u" }, "linux", none)).toBe("/x/cfg");
    expect(configDir({ PARTNER_CLI_CONFIG_DIR: "D:\\cfg", APPDATA: "C:\\A" }, "win32", none)).toBe("D:\\cfg");
  });

  it("Linux and macOS: $XDG_CONFIG_HOME/partner-cli (absolute only), else ~/.config/partner-cli", () => {
    for (const os of ["linux", "darwin"] as const) {
      expect(configDir({ HOME: "/home/u" }, os, none)).toBe("/home/u/.config/partner-cli");
      expect(configDir({ HOME: "/home/u", XDG_CONFIG_HOME: "/xdg" }, os, none)).toBe("/xdg/partner-cli");
      expect(configDir({ HOME: "/home/u", XDG_CONFIG_HOME: "rel" }, os, none)).toBe(
        "/home/u/.config/partner-cli",
      );
    }
  });

  it("Windows: %APPDATA%\\partner-cli, else under %USERPROFILE%; XDG is not read", () => {
    const env = {
      APPDATA: "C:\\Users\\u\\AppData\\Roaming",
      USERPROFILE: "C:\\Users\\u",
      XDG_CONFIG_HOME: "C:\\xdg",
    };
    expect(configDir(env, "win32", none)).toBe("C:\\Users\\u\\AppData\\Roaming\\partner-cli");
    expect(configDir({ USERPROFILE: "C:\\Users\\u" }, "win32", none)).toBe(
      "C:\\Users\\u\\AppData\\Roaming\\partner-cli",
    );
  });

  it("Windows: an earlier version's ~/.config/partner-cli is still read while %APPDATA%\\partner-cli does not exist", () => {
    const env = { APPDATA: "C:\\Users\\u\\AppData\\Roaming", USERPROFILE: "C:\\Users\\u" };
    const old = "C:\\Users\\u\\.config\\partner-cli";
    const fresh = "C:\\Users\\u\\AppData\\Roaming\\partner-cli";
    expect(configDir(env, "win32", only(old))).toBe(old);
    expect(configDir(env, "win32", only(old, fresh))).toBe(fresh);
  });
});

describe("state dir", () => {
  it("PARTNER_CLI_STATE_DIR, else state/ inside PARTNER_CLI_CONFIG_DIR (one variable isolates a run)", () => {
    expect(stateDir({ PARTNER_CLI_STATE_DIR: "/s", PARTNER_CLI_CONFIG_DIR: "/c" }, "linux")).toBe("/s");
    expect(stateDir({ PARTNER_CLI_CONFIG_DIR: "/c" }, "darwin")).toBe("/c/state");
    expect(stateDir({ PARTNER_CLI_CONFIG_DIR: "C:\\c" }, "win32")).toBe("C:\\c\\state");
  });

  it("Linux and macOS: $XDG_STATE_HOME/partner-cli, else ~/.local/state/partner-cli", () => {
    for (const os of ["linux", "darwin"] as const) {
      expect(stateDir({ HOME: "/home/u" }, os)).toBe("/home/u/.local/state/partner-cli");
      expect(stateDir({ HOME: "/home/u", XDG_STATE_HOME: "/st" }, os)).toBe("/st/partner-cli");
      expect(stateDir({ HOME: "/home/u", XDG_STATE_HOME: "st" }, os)).toBe(
        "/home/u/.local/state/partner-cli",
      );
    }
  });

  it("Windows: %LOCALAPPDATA%\\partner-cli, else under %USERPROFILE%", () => {
    expect(stateDir({ LOCALAPPDATA: "C:\\Users\\u\\AppData\\Local" }, "win32")).toBe(
      "C:\\Users\\u\\AppData\\Local\\partner-cli",
    );
    expect(stateDir({ USERPROFILE: "C:\\Users\\u" }, "win32")).toBe(
      "C:\\Users\\u\\AppData\\Local\\partner-cli",
    );
  });
});

describe("the embedded sandbox's data dir", () => {
  it("sandbox/ in the state dir; an earlier version's <config dir>/sandbox while the state dir has none", () => {
    const env = { HOME: "/home/u" };
    const fresh = "/home/u/.local/state/partner-cli/sandbox";
    const old = "/home/u/.config/partner-cli/sandbox";
    expect(sandboxDataDir(env, "linux", none)).toBe(fresh);
    expect(sandboxDataDir(env, "linux", only(old))).toBe(old);
    expect(sandboxDataDir(env, "linux", only(old, fresh))).toBe(fresh);
    const win = { APPDATA: "C:\\R", LOCALAPPDATA: "C:\\L" };
    expect(sandboxDataDir(win, "win32", none)).toBe("C:\\L\\partner-cli\\sandbox");
    expect(sandboxDataDir(win, "win32", only("C:\\R\\partner-cli\\sandbox"))).toBe(
      "C:\\R\\partner-cli\\sandbox",
    );
  });
});
