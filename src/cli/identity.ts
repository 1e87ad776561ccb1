// login, logout, me.
import type { Command } from "@commander-js/extra-typings";
import { action, type CliRuntime, examples } from "./define.js";
import { notes } from "./help.js";

export function registerIdentity(program: Command, rt: CliRuntime): void {
  const login = program
    .command("login")
    .description(
      "check an API key with GET /me, then store it in a profile (the key is read hidden, or from stdin)",
    )
    .option("--api-key-stdin", "read the key from stdin (one line) instead of a hidden prompt")
    .option(
      "--insecure-storage",
      "keep the key in the config file (0600) even where the OS keychain answers (e.g. for cron on a desktop)",
    );
  examples(login, [
    "partner-cli login --base-url https://partner.example.com",
    "partner-cli login --profile prod --base-url https://partner.example.com",
    "printf '%s\\n' \"$KEY\" | partner-cli login --profile ci --api-key-stdin",
  ]);
  notes(
    login,
    '\nThe profile name is --profile, else PARTNER_PROFILE, else "default". The base URL is\n--base-url, else PARTNER_BASE_URL, else the one already stored in that profile.\nThe first profile stored becomes the current one; switch with "partner-cli profiles use NAME".\n',
  );
  action(rt, login, () => import("../commands/identity/login.js"), "loginRun");

  const logout = program
    .command("logout")
    .description("forget a stored profile and its key (the current profile unless --profile names one)");
  examples(logout, ["partner-cli logout", "partner-cli logout --profile staging"]);
  action(rt, logout, () => import("../commands/identity/logout.js"), "logoutRun");

  const me = program
    .command("me")
    .description("show the key name, whether it can write, the organization and its time zone");
  examples(me, ["partner-cli me", "partner-cli me --json", "PARTNER_PROFILE=prod partner-cli me"]);
  action(rt, me, () => import("../commands/identity/me.js"), "meRun");
}
