// Builds the commander tree from the declarations in src/cli/. Each action imports its run module
// lazily. At run time (main.ts) the tree is built lazily too: every noun is registered by name,
// aliases and description only (enough for the top-level --help, suggestions and dispatch), and its
// verbs are declared when commander dispatches to it. `buildProgram(rt)` without options builds the
// whole tree, for the docs and completion generators and the tests that walk it.
import { Writable } from "node:stream";
import { Command, type CommandUnknownOpts } from "@commander-js/extra-typings";
import type { Command as CommanderCommand } from "commander";
import { registerApi } from "./cli/api.js";
import { registerCampaigns } from "./cli/campaigns.js";
import { registerCompletion } from "./cli/completion.js";
import { registerCursors } from "./cli/cursors.js";
import { type CliRuntime, commanderView, examples } from "./cli/define.js";
import { registerEvents } from "./cli/events.js";
import { configureHelp, helpPage, helpWidth, notes } from "./cli/help.js";
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
import { registerVersion, VERSION_DESCRIPTION } from "./cli/version.js";
import { registerWebhooks } from "./cli/webhooks.js";
import type { HelpPage } from "./cli/help-layout.js";
import type { IoStreams } from "./io/io.js";
import { VERSION } from "./version.js";

/** Declares one noun (or top-level command) on `program`; its actions run through `rt`. */
export type Registrar = (program: Command, rt: CliRuntime) => void;

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

/** What the top level shows of a noun before its verbs are declared. */
export interface NounSummary {
  name: string;
  aliases: string[];
  description: string;
}

/**
 * The nouns declared lazily, with what `partner-cli --help` shows of them. test/cli/lazy-tree.test.ts
 * checks these against the declarations, so they cannot drift. A registrar not listed here (or one
 * that declares more than one top-level command) is registered eagerly: always correct, only slower.
 */
export const LAZY_NOUNS = new Map<Registrar, NounSummary>([
  [
    registerProfiles,
    {
      name: "profiles",
      aliases: ["profile"],
      description: "list, switch, show and remove stored profiles (base URL + API key)",
    },
  ],
  [
    registerRoster,
    {
      name: "roster",
      aliases: [],
      description: "the organization's creators, keyed by your own creator ID (externalId)",
    },
  ],
  [
    registerOffers,
    {
      name: "offers",
      aliases: ["offer"],
      description: "read the coupon offers your organization may distribute",
    },
  ],
  [
    registerCampaigns,
    {
      name: "campaigns",
      aliases: ["campaign"],
      description: "list, create and manage campaigns (dates, code limit, commission, status)",
    },
  ],
  [
    registerLinks,
    {
      name: "links",
      aliases: ["link"],
      description: "share links: one per creator per campaign, singly or in bulk (assign)",
    },
  ],
  [
    registerRedemptions,
    { name: "redemptions", aliases: ["redemption"], description: "export and read redemptions" },
  ],
  [
    registerReports,
    {
      name: "reports",
      aliases: ["report"],
      description: "program summary, campaign report and creator counts",
    },
  ],
  [
    registerWebhooks,
    {
      name: "webhooks",
      aliases: ["webhook"],
      description: "register webhook endpoints, verify signatures and run a local receiver",
    },
  ],
  [
    registerEvents,
    {
      name: "events",
      aliases: ["event"],
      description: "read the event log (30 days), follow it, or copy it to a local NDJSON store",
    },
  ],
  [
    registerCursors,
    {
      name: "cursors",
      aliases: ["cursor"],
      description: "saved positions of redemption exports and event syncs",
    },
  ],
  [
    registerSandbox,
    {
      name: "sandbox",
      aliases: [],
      description:
        "the local sandbox: a faithful, stateful Partner API on your machine (start, reset, advance, simulate, and its controls)",
    },
  ],
  [registerVersion, { name: "version", aliases: [], description: VERSION_DESCRIPTION }],
]);

/** Commands that read the whole tree at run time (the completion script is generated from it). */
const NEEDS_WHOLE_TREE = new Set(["completion", "__complete"]);

export interface BuildOptions {
  /**
   * The command line about to be parsed (the CLI at run time): only the noun it names gets its verbs
   * declared now; any other noun is declared if commander dispatches to it after all.
   */
  lazyFor?: readonly string[];
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
  program
    .showHelpAfterError("(run with --help for usage)")
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => rt.streams.stdout.write(s),
      writeErr: (s) => rt.streams.stderr.write(s),
    });
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
  if (!options.lazyFor) {
    for (const register of REGISTRARS) register(program, rt);
    return commanderView(program);
  }
  const pending = new Map<CommandUnknownOpts, Registrar>();
  for (const register of REGISTRARS) {
    const summary = LAZY_NOUNS.get(register);
    if (!summary) {
      register(program, rt);
      continue;
    }
    const stub = program.command(summary.name).description(summary.description);
    for (const alias of summary.aliases) stub.alias(alias);
    pending.set(stub, register);
  }
  const declare = (stub: CommandUnknownOpts) => {
    const register = pending.get(stub);
    if (!register) return;
    pending.delete(stub);
    declareInPlace(program, stub, register, rt);
  };
  program.hook("preSubcommand", (_program, sub) => {
    if (NEEDS_WHOLE_TREE.has(sub.name())) for (const stub of [...pending.keys()]) declare(stub);
    else declare(sub);
  });
  // `help NOUN` prints the noun's help without dispatching to it, so the named noun is declared now.
  const named = namedCommand(program, options.lazyFor);
  for (const stub of pending.keys()) if (named !== undefined && isNamed(stub, named)) declare(stub);
  return commanderView(program);
}

/**
 * What the top-level --help shows, as data. scripts/build.mjs reads it from the built program and
 * bundles it into dist/help-top.js, which bin/ prints for `--help`, `-h` and `help` without loading
 * the program (src/cli/help-top.ts).
 */
export function topHelpPage(): HelpPage {
  const sink = new Writable({ write: (_chunk, _enc, done) => done() });
  const program = buildProgram(
    {
      makeContext: () => {
        throw new Error("topHelpPage() runs no command");
      },
      streams: { stdout: sink, stderr: sink },
    },
    { lazyFor: [] },
  );
  return helpPage(program, program.createHelp());
}

function isNamed(cmd: CommandUnknownOpts, name: string): boolean {
  return cmd.name() === name || cmd.aliases().includes(name);
}

/** The top-level command an argv names (`help X` names X): its first operand, global options skipped. */
function namedCommand(program: Command, argv: readonly string[]): string | undefined {
  const takesValue = new Set<string>();
  for (const o of program.options) {
    if (!o.required && !o.optional) continue;
    if (o.long) takesValue.add(o.long);
    if (o.short) takesValue.add(o.short);
  }
  const operands: string[] = [];
  for (let i = 0; i < argv.length && operands.length < 2; i++) {
    const a = argv[i]!;
    if (a === "--") operands.push(...argv.slice(i + 1));
    else if (!a.startsWith("-") || a === "-") operands.push(a);
    else if (takesValue.has(a)) i++;
    if (a === "--") break;
  }
  return operands[0] === "help" ? operands[1] : operands[0];
}

/**
 * Runs a noun's registrar so that it declares into the stub commander has already chosen (a new
 * command object would not be the one it goes on to parse): `program.command(name)` answers the
 * stub, whose aliases are cleared first because the registrar adds them again.
 */
function declareInPlace(
  program: Command,
  stub: CommandUnknownOpts,
  register: Registrar,
  rt: CliRuntime,
): void {
  (stub as unknown as { _aliases: string[] })._aliases = [];
  const target = new Proxy(program, {
    get(obj, key, receiver) {
      if (key === "command") {
        return (nameAndArgs: string, ...rest: unknown[]) =>
          nameAndArgs.split(/\s+/)[0] === stub.name()
            ? stub
            : (obj.command as (...a: unknown[]) => Command)(nameAndArgs, ...rest);
      }
      const v = Reflect.get(obj, key, receiver);
      return typeof v === "function" ? v.bind(obj) : v;
    },
  });
  register(target, rt);
}
