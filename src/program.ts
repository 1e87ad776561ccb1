// Builds the commander tree from the declarations in src/cli/. Each action imports its run module
// lazily. At run time (main.ts) the tree is built lazily too: a noun declared with lazyNoun() is
// declared by its own first step only (name, aliases, description: enough for the top-level --help,
// suggestions and dispatch), and its verbs when commander dispatches to it (its preSubcommand hook).
// `buildProgram(rt)` without options builds the whole tree, for the docs and completion generators
// and the tests that walk it.
import { Command } from "@commander-js/extra-typings";
import type { Command as CommanderCommand } from "commander";
import { registerApi } from "./cli/api.js";
import { registerCampaigns } from "./cli/campaigns.js";
import { registerCompletion } from "./cli/completion.js";
import { registerCursors } from "./cli/cursors.js";
import { type CliRuntime, commanderView, examples, type LazyNoun } from "./cli/define.js";
import type { CommandUnknownOpts } from "@commander-js/extra-typings";
import { registerEvents } from "./cli/events.js";
import { configureHelp, helpWidth, notes } from "./cli/help.js";
import { registerHelp } from "./cli/help-command.js";
import { registerIdentity } from "./cli/identity.js";
import { registerLinks } from "./cli/links.js";
import { registerOffers } from "./cli/offers.js";
import { registerProfiles } from "./cli/profiles.js";
import { registerRedemptions } from "./cli/redemptions.js";
import { registerReports } from "./cli/reports.js";
import { registerRoster } from "./cli/roster.js";
import { registerSandbox } from "./cli/sandbox.js";
import { registerSync } from "./cli/sync.js";
import { usageErrorText } from "./cli/usage-error.js";
import { registerVersion } from "./cli/version.js";
import { registerWebhooks } from "./cli/webhooks.js";
import type { IoStreams } from "./io/io.js";
import { VERSION } from "./version.js";

/**
 * Declares one noun (or top-level commands) on `program`; its actions run through `rt`. A LazyNoun
 * (src/cli/define.ts) has its verbs declared only when it is named; a plain registrar declares all
 * it has at once (always correct, only slower: for commands that are few, or not nouns).
 */
export type Registrar = ((program: Command, rt: CliRuntime) => void) | LazyNoun;

/** Every noun's declarations, in help order. */
export const REGISTRARS: Registrar[] = [
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
  registerVersion,
  registerHelp,
];

/** Commands that read the whole tree at run time (completion, and help, which shows any command's page). */
const NEEDS_WHOLE_TREE = new Set(["completion", "__complete", "help"]);

export interface BuildOptions {
  /** The CLI at run time: a lazy noun's verbs are declared when commander dispatches to it. */
  lazy?: boolean;
  /** The environment help reads its width from (COLUMNS); without it, help is 80 columns wide. */
  env?: NodeJS.ProcessEnv;
}

/** The program's description, version and the global flags every command accepts. */
function declareGlobalOptions(program: Command): Command {
  return program
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
    .option("--no-input", "never prompt; a missing answer is a usage error (env PARTNER_NO_INPUT=1)")
    .option("--yes", "confirm destructive actions without a prompt")
    .option("--verbose", "trace requests on stderr, secrets redacted (env PARTNER_DEBUG=1)")
    .option(
      "--sandbox",
      "use the embedded sandbox on purpose, even when a profile or key exists (env PARTNER_SANDBOX=1)",
    );
}

export function buildProgram(
  rt: CliRuntime & { streams: Pick<IoStreams, "stdout" | "stderr"> },
  options: BuildOptions = {},
): CommanderCommand {
  const program = declareGlobalOptions(new Command("partner-cli"));
  // The command being parsed (commander dispatches down through preSubcommand): a parse error's
  // suggestion and hint are that command's.
  let parsing: CommanderCommand = commanderView(program);
  const follow = (_parent: unknown, sub: CommandUnknownOpts) => {
    parsing = commanderView(sub);
  };
  program
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => rt.streams.stdout.write(s),
      writeErr: (s) => rt.streams.stderr.write(s),
      outputError: (s, write) => write(usageErrorText(s, parsing)),
    })
    .hook("preSubcommand", follow);
  // --sandbox names one service, --base-url and --profile another: refused before any command runs.
  program.hook("preAction", async (_program, actionCommand) => {
    const g = actionCommand.optsWithGlobals();
    if (g.sandbox && (g.baseUrl || g.profile)) {
      const { sandboxClash } = await import("./context.js");
      throw sandboxClash("--sandbox", g.baseUrl ? "--base-url" : "--profile");
    }
  });
  configureHelp(commanderView(program), helpWidth(options.env ?? {}, rt.streams.stdout));
  notes(
    program,
    "With no profile and no PARTNER_API_KEY, commands run against the embedded sandbox only at a\nterminal; scripts, cron and CI choose it with --sandbox or PARTNER_SANDBOX=1 (exit 4 otherwise).",
  );
  examples(program, [
    "partner-cli roster import docs/examples/roster.csv --sandbox",
    "partner-cli login --profile prod --base-url https://partner.example.com",
  ]);
  const pending = new Map<Command, LazyNoun>();
  for (const r of REGISTRARS) {
    if (typeof r === "function") r(program, rt);
    else {
      const noun = r.noun(program);
      noun.hook("preSubcommand", follow);
      if (options.lazy) pending.set(noun, r);
      else r.verbs(noun, rt);
    }
  }
  if (pending.size > 0)
    program.hook("preSubcommand", (_program, sub) => {
      for (const [noun, r] of [...pending]) {
        if (noun !== sub && !NEEDS_WHOLE_TREE.has(sub.name())) continue;
        pending.delete(noun);
        r.verbs(noun, rt);
      }
    });
  return commanderView(program);
}
