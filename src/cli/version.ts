// version: what this partner-cli is and where it keeps its files (also `--version --verbose` or
// `--version --json`; `--version` alone stays one line, answered by bin/).
import type { Command } from "@commander-js/extra-typings";
import { action, type CliRuntime, examples, lazyNoun } from "./define.js";
import { notes } from "./help.js";

const VERSION_DESCRIPTION =
  "show the version, commit, Node, platform, config and state directories, and where the key is kept";

/** The noun as the top-level help shows it; its verbs are declared when it is named (program.ts). */
export const registerVersion = lazyNoun(
  (program: Command) => program.command("version").description(VERSION_DESCRIPTION),
  declareVersionVerbs,
);

function declareVersionVerbs(version: Command, rt: CliRuntime): void {
  examples(version, ["partner-cli version", "partner-cli version --json", "partner-cli --version --verbose"]);
  notes(
    version,
    '\nIt needs no credentials and starts nothing. keyStorage is where the key of the current profile\n(--profile, PARTNER_PROFILE, else the stored current one) is kept: "keychain" (the OS keychain),\n"file" (the 0600 config file), "env" (PARTNER_API_KEY, which overrides a profile), "sandbox"\n(--sandbox or PARTNER_SANDBOX chooses the embedded sandbox) or "none".\n"partner-cli --version" alone prints the version only, on one line.\n',
  );
  action(rt, version, () => import("../commands/version/print.js"), "versionRun");
}
