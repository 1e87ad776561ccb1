// Builds the commander tree from the declarations in src/cli/. Declarations load eagerly so --help
// is complete; each action imports its run module lazily.
import { Command } from "commander";
import { registerApi } from "./cli/api.js";
import { registerCampaigns } from "./cli/campaigns.js";
import { registerCompletion } from "./cli/completion.js";
import { registerCursors } from "./cli/cursors.js";
import { type CliRuntime, setRuntime } from "./cli/define.js";
import { registerEvents } from "./cli/events.js";
import { registerIdentity } from "./cli/identity.js";
import { registerLinks } from "./cli/links.js";
import { registerOffers } from "./cli/offers.js";
import { registerProfiles } from "./cli/profiles.js";
import { registerRedemptions } from "./cli/redemptions.js";
import { registerReports } from "./cli/reports.js";
import { registerRoster } from "./cli/roster.js";
import { registerSandbox } from "./cli/sandbox.js";
import { registerSync } from "./cli/sync.js";
import { registerWebhooks } from "./cli/webhooks.js";
import { sandboxClash } from "./context.js";
import type { IoStreams } from "./io/io.js";
import { VERSION } from "./version.js";

/** Every noun's declarations, in help order. */
export const REGISTRARS: ((program: Command) => void)[] = [
  registerIdentity,
  registerProfiles,
  registerRoster,
  registerOffers,
  registerCampaigns,
  registerLinks,
  registerRedemptions,
  registerReports,
  registerWebhooks,
  registerEvents,
  registerSync,
  registerCursors,
  registerSandbox,
  registerApi,
  registerCompletion,
];

export function buildProgram(rt: CliRuntime & { streams: Pick<IoStreams, "stdout" | "stderr"> }): Command {
  setRuntime(rt);
  const program = new Command("partner-cli");
  program
    .description("Run coupon campaigns through creators on the Creator Campaign Partner API.")
    .version(VERSION, "-V, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .option("--profile <name>", "stored profile to use (env PARTNER_PROFILE)")
    .option("--base-url <url>", "service base URL, the part before /api/partner/v1 (env PARTNER_BASE_URL)")
    .option("--json", "machine output (JSON) on stdout; with it, an error is one JSON object on stderr")
    .option(
      "--fields <list>",
      "only these fields, comma-separated, nested with dots (a,b.c): columns or JSON keys",
    )
    .option("--jq <expr>", "filter the JSON output with jq's language (strings print raw)")
    .option("--quiet", "print nothing on stderr but errors (no notices, hints or progress)")
    .option(
      "--no-color",
      "no ANSI colors (also off with NO_COLOR or CLICOLOR=0, or when not a terminal; FORCE_COLOR/CLICOLOR_FORCE force them)",
    )
    .option("--no-input", "never prompt; a missing answer is a usage error")
    .option("--yes", "confirm destructive actions without a prompt")
    .option("--verbose", "trace requests on stderr, secrets redacted (env PARTNER_DEBUG=1)")
    .option(
      "--sandbox",
      "use the embedded sandbox on purpose, even when a profile or key exists (env PARTNER_SANDBOX=1)",
    )
    .showHelpAfterError("(run with --help for usage)")
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => rt.streams.stdout.write(s),
      writeErr: (s) => rt.streams.stderr.write(s),
    });
  // --sandbox names one service, --base-url and --profile another: refused before any command runs.
  program.hook("preAction", (_program, actionCommand) => {
    const g = actionCommand.optsWithGlobals();
    if (g.sandbox && (g.baseUrl || g.profile))
      throw sandboxClash("--sandbox", g.baseUrl ? "--base-url" : "--profile");
  });
  program.addHelpText(
    "after",
    "\nWith no profile and no PARTNER_API_KEY, commands run against the embedded sandbox only at a\nterminal; scripts, cron and CI choose it with --sandbox or PARTNER_SANDBOX=1 (exit 4 otherwise).\n\nExamples:\n  $ partner-cli roster import docs/examples/roster.csv --sandbox\n  $ partner-cli login --profile prod --base-url https://partner.example.com\n",
  );
  for (const register of REGISTRARS) register(program);
  return program;
}
