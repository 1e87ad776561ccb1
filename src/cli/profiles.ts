// profiles list | use NAME | show [NAME] | remove NAME.
import type { Command } from "@commander-js/extra-typings";
import { completesProfileNames } from "./tree.js";
import { action, type CliRuntime, examples, limitOption, outputOptions, lazyNoun } from "./define.js";

/** The noun as the top-level help shows it; its verbs are declared when it is named (program.ts). */
export const registerProfiles = lazyNoun(
  (program: Command) =>
    program
      .command("profiles")
      .alias("profile")
      .description("list, switch, show and remove stored profiles (base URL + API key)"),
  declareProfilesVerbs,
);

function declareProfilesVerbs(profiles: Command, rt: CliRuntime): void {
  examples(profiles, ["partner-cli profiles list", "partner-cli profiles use prod"]);

  const list = profiles
    .command("list")
    .alias("ls")
    .description("list stored profiles: name, base URL, organization, key (last 4 characters), current")
    .addOption(limitOption("profiles"));
  examples(list, ["partner-cli profiles list", "partner-cli profiles list --json"]);
  outputOptions(list);
  action(rt, list, () => import("../commands/profiles/list.js"), "profilesListRun");

  const use = profiles
    .command("use")
    .argument("<name>", "profile to make current")
    .description("make a stored profile the current one");
  completesProfileNames(use);
  examples(use, ["partner-cli profiles use prod"]);
  action(rt, use, () => import("../commands/profiles/use.js"), "profilesUseRun");

  const show = profiles
    .command("show")
    .argument("[name]", "profile to show (default: --profile, PARTNER_PROFILE, else the current one)")
    .description("show one profile; the key only as its last 4 characters");
  completesProfileNames(show);
  examples(show, ["partner-cli profiles show", "partner-cli profiles show prod --json"]);
  outputOptions(show);
  action(rt, show, () => import("../commands/profiles/show.js"), "profilesShowRun");

  const remove = profiles
    .command("remove")
    .alias("rm")
    .argument("<name>", "profile to remove")
    .description("remove a stored profile and its key (asks first; --yes when not on a terminal)");
  completesProfileNames(remove);
  examples(remove, ["partner-cli profiles remove staging", "partner-cli profiles remove staging --yes"]);
  action(rt, remove, () => import("../commands/profiles/remove.js"), "profilesRemoveRun");
}
