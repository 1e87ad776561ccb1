// login, logout, me.
import type { Command } from "commander";
import { action, examples } from "./define.js";

export function registerIdentity(program: Command): void {
  const me = program
    .command("me")
    .description("show the key name, whether it can write, the organization and its time zone");
  examples(me, ["partner-cli me", "partner-cli me --json"]);
  action(me, async (ctx) => (await import("../commands/identity/me.js")).meRun(ctx));
}
