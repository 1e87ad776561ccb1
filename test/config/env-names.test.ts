// Misspelled environment variables: names that look like ours are found (with a suggestion), and
// ordinary variables, our own names and the tuning families are left alone. Values are never read.
import { describe, expect, it } from "vitest";
import {
  editDistance,
  KNOWN_ENV_NAMES,
  misspelledEnvNames,
  misspellingNote,
} from "../../src/config/env-names.js";

const suggestionFor = (name: string) => misspelledEnvNames({ [name]: "x" })[0]?.[1];

describe("misspelledEnvNames", () => {
  it.each([
    ["PARTNER_APIKEY", "PARTNER_API_KEY"],
    ["PARTNER_API_TOKEN", "PARTNER_API_KEY"],
    ["PARTNER_TOKEN", "PARTNER_API_KEY"],
    ["PARTNER_KEY", "PARTNER_API_KEY"],
    ["PARTNERS_API_KEY", "PARTNER_API_KEY"],
    ["PARNTER_API_KEY", "PARTNER_API_KEY"],
    ["partner_api_key", "PARTNER_API_KEY"],
    ["Partner_Api_Key", "PARTNER_API_KEY"],
    ["PARTNER-API-KEY", "PARTNER_API_KEY"],
    ["PARTNER_BASEURL", "PARTNER_BASE_URL"],
    ["PARTNER_URL", "PARTNER_BASE_URL"],
    ["PARTNER_BASE_URI", "PARTNER_BASE_URL"],
    ["PARTNER_HOST", "PARTNER_BASE_URL"],
    ["PARTNER_API_ENDPOINT", "PARTNER_BASE_URL"],
    ["PARTNER_PROFILES", "PARTNER_PROFILE"],
    ["PARTNER_SANDBOXED", "PARTNER_SANDBOX"],
    ["PARTNER_SANBOX", "PARTNER_SANDBOX"],
    ["PARTNER_CONFIG_DIR", "PARTNER_CLI_CONFIG_DIR"],
    ["PARTNER_DEBUGG", "PARTNER_DEBUG"],
    ["PARTNER_SYNCTO", "PARTNER_SYNC_TO"],
  ])("%s → did you mean %s?", (name, meant) => {
    expect(suggestionFor(name)).toBe(`did you mean ${meant}?`);
  });

  it("leaves ordinary variables, our own names and the tuning families alone", () => {
    const env: NodeJS.ProcessEnv = {
      PATH: "/usr/bin",
      HOME: "/home/me",
      USER: "me",
      SHELL: "/bin/sh",
      LANG: "C.UTF-8",
      TERM: "xterm",
      NO_COLOR: "1",
      XDG_CONFIG_HOME: "/x",
      API_KEY: "k",
      BASE_URL: "u",
      GITHUB_TOKEN: "t",
      PARTNER_ID: "42",
      PARTNER_NAME: "Northwind",
      PARTNER_RETRY_DEADLINE_MS: "300",
      PARTNER_RETRY_BASE_MS: "20",
      PARTNER_RETRY_ANYTHING: "1",
      PARTNER_SANDBOX_DEBUG: "1",
      PARTNER_SANDBOX_WEBHOOK_TIMEOUT_MS: "100",
    };
    for (const name of KNOWN_ENV_NAMES) env[name] = "set";
    expect(misspelledEnvNames(env)).toEqual([]);
    expect(misspellingNote(env)).toBeUndefined();
  });

  it("looks at names only: the note never holds a value", () => {
    const env = { PARTNER_APIKEY: "sk_secret_value_1234", PARTNER_BASEURL: "https://x.example", HOME: "/h" };
    expect(misspelledEnvNames(env)).toEqual([
      ["PARTNER_APIKEY", "did you mean PARTNER_API_KEY?"],
      ["PARTNER_BASEURL", "did you mean PARTNER_BASE_URL?"],
    ]);
    const note = misspellingNote(env)!;
    expect(note).toBe(
      "These variables are set but are not ones partner-cli reads: PARTNER_APIKEY (did you mean PARTNER_API_KEY?), PARTNER_BASEURL (did you mean PARTNER_BASE_URL?).",
    );
    expect(note).not.toContain("sk_secret");
    expect(note).not.toContain("x.example");
  });

  it("edit distance counts an adjacent swap as one step", () => {
    expect(editDistance("PARTNER", "PARNTER")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("kitten", "sitting")).toBe(3);
  });
});
