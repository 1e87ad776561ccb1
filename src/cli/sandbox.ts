// sandbox start | reset | advance | clock | simulate | view | brand-access | offer | supply-alerts |
// time-zone | fail-next-job | faults: the local, stateful implementation of the Partner API and a verb
// for each of its control routes (/_sandbox).
// Declarations only; the run functions live in src/commands/sandbox/ and load lazily.
import { Argument, type Command, InvalidArgumentError, Option } from "@commander-js/extra-typings";
import { action, type CliRuntime, examples, parseDuration, parseIntArg, lazyNoun } from "./define.js";
import { notes } from "./help.js";
import { OFFER_STATES } from "../spec/offer-states.js";

const DEFAULT_SANDBOX_PORT = 4010;

function parseRate(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < 0)
    throw new InvalidArgumentError("expected a whole number of requests per second");
  return n;
}

/** The noun as the top-level help shows it; its verbs are declared when it is named (program.ts). */
export const registerSandbox = lazyNoun(
  (program: Command) =>
    program
      .command("sandbox")
      .description(
        "the local sandbox: a faithful, stateful Partner API on your machine (start, reset, advance, simulate, and its controls)",
      ),
  declareSandboxVerbs,
);

function declareSandboxVerbs(sandbox: Command, rt: CliRuntime): void {
  notes(
    sandbox,
    "\nWith no profile and no PARTNER_API_KEY, commands run against the embedded sandbox at a terminal;\n" +
      "scripts choose it with --sandbox or PARTNER_SANDBOX=1. Every verb but start acts on the sandbox\n" +
      "the command targets: the embedded one, or a served one reached by its base URL.\n",
  );
  examples(sandbox, [
    "partner-cli sandbox start --port 4010",
    "partner-cli sandbox advance 2h",
    "partner-cli sandbox reset --yes",
    "partner-cli sandbox brand-access 'Crunchy Oats Co.' lost",
  ]);

  const start = sandbox
    .command("start")
    .description(
      "serve the sandbox over HTTP until Ctrl-C or SIGTERM; prints its base URL, write key and read-only key",
    )
    .option(
      "--port <n>",
      `port to listen on (0 picks a free one)`,
      parseIntArg(0, 65535),
      DEFAULT_SANDBOX_PORT,
    )
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--data-dir <dir>", "keep state in this directory across restarts (default: in memory only)")
    .addOption(
      new Option("--seed <kind>", "starting data when the data dir holds none: demo roster or empty roster")
        .choices(["demo", "empty"])
        .default("demo"),
    )
    .option("--latency <ms>", "add this many milliseconds to every API request", parseIntArg(0, 600_000))
    .option(
      "--faults <spec>",
      "inject faults at random: KIND=RATE,... with KIND one of 429, 502, 500, reset, reset-after, stall and RATE 0..1",
    )
    .option(
      "--rate-limit <n>",
      "answer 429 rate_limited beyond N requests per second per key (0 = off)",
      parseRate,
    )
    .option("--strict-webhook-urls", "require public https webhook URLs, as a real service would");
  examples(start, [
    "partner-cli sandbox start",
    "partner-cli sandbox start --port 0 --json",
    "partner-cli sandbox start --data-dir ./sandbox-data --seed empty",
    "partner-cli sandbox start --latency 200 --faults 429=0.1,502=0.05,500=0.02 --rate-limit 20",
  ]);
  action(rt, start, () => import("../commands/sandbox/start.js"), "sandboxStartRun");

  const reset = sandbox
    .command("reset")
    .description(
      "wipe the sandbox's data back to a seed (keys, organizations and brand ids are kept); asks first",
    )
    .addOption(
      new Option("--seed <kind>", "demo roster or empty roster").choices(["demo", "empty"]).default("demo"),
    );
  examples(reset, ["partner-cli sandbox reset", "partner-cli sandbox reset --seed empty --yes"]);
  action(rt, reset, () => import("../commands/sandbox/reset.js"), "sandboxResetRun");

  const advance = sandbox
    .command("advance")
    .description("move the sandbox clock forward (event times, retries, presets and retention follow it)")
    .argument("<duration>", 'how far: "90s", "15m", "2h", "1d", "1h30m" or milliseconds', parseDuration);
  examples(advance, ["partner-cli sandbox advance 2h", "partner-cli sandbox advance 1d --json"]);
  action(rt, advance, () => import("../commands/sandbox/advance.js"), "sandboxAdvanceRun", {
    args: ["durationMs"],
  });

  registerControls(sandbox, rt);

  const count = <F extends string>(flag: F, what: string) =>
    new Option(`--${flag} <n>` as `--${F} <n>`, what).argParser(parseIntArg(0, 1_000_000));
  const simulate = sandbox
    .command("simulate")
    .description(
      "simulate shopper traffic on the sandbox: link views, claims, redemptions and corrections; shortfalls are warnings, nothing generated at all is exit 3",
    )
    .option(
      "--campaign <id-or-ref>",
      "only this campaign (id or external reference; unknown: exit 5); default: active campaigns",
    )
    .addOption(count("views", "share-link views"))
    .addOption(count("claims", "coupon claims"))
    .addOption(count("redemptions", "redemptions"))
    .addOption(count("test-codes", "staff test codes issued (never redeemed, no events)"))
    .addOption(count("test-redemptions", "redemptions of staff test codes (countingState test_code)"))
    .addOption(count("exclusions", "redemptions later excluded (corrections)"))
    .addOption(
      count("restorations", "excluded redemptions restored (including exclusions made by the same call)"),
    )
    .option("--reason <text>", "reason recorded with the exclusions and restorations")
    .option(
      "--days <n>",
      "spread the traffic over today and the N-1 days before (default 1)",
      parseIntArg(1, 1000),
    )
    .option(
      "--no-events",
      "leave out the per-item events (a bench that needs only rows); the event log is then incomplete, as the answer and the sandbox's status say",
    )
    .option("--seed <n>", "random seed, for repeatable traffic", parseIntArg(0));
  examples(simulate, [
    "partner-cli sandbox simulate --views 200 --claims 40 --redemptions 12",
    "partner-cli sandbox simulate --campaign spring-oats --redemptions 5 --exclusions 1 --seed 7 --json",
  ]);
  action(rt, simulate, () => import("../commands/sandbox/simulate.js"), "sandboxSimulateRun");
}

/** The verbs for the sandbox's control routes (src/commands/sandbox/<verb>.ts). */
function registerControls(sandbox: Command, rt: CliRuntime): void {
  const clock = sandbox
    .command("clock")
    .description("print the sandbox's time and how far it is ahead of real time");
  examples(clock, ["partner-cli sandbox clock", "partner-cli sandbox clock --json"]);
  action(rt, clock, () => import("../commands/sandbox/clock.js"), "sandboxClockRun");

  const status = sandbox
    .command("status")
    .description("print where the sandbox keeps its state and whether its event log holds every event");
  examples(status, ["partner-cli sandbox status", "partner-cli sandbox status --json"]);
  action(rt, status, () => import("../commands/sandbox/status.js"), "sandboxStatusRun");

  const brandAccess = sandbox
    .command("brand-access")
    .description(
      "the organization loses or gets back access to a brand: with access lost its campaigns are view-only (every change answers 409 conflict)",
    )
    .argument("<brand>", "brand id, or the brand's exact name")
    .addArgument(new Argument("<access>", "lost or restored").choices(["lost", "restored"] as const));
  examples(brandAccess, [
    "partner-cli sandbox brand-access 'Crunchy Oats Co.' lost",
    "partner-cli sandbox brand-access 'Crunchy Oats Co.' restored",
  ]);
  action(rt, brandAccess, () => import("../commands/sandbox/brand-access.js"), "sandboxBrandAccessRun", {
    args: ["brand", "access"],
  });

  const offer = sandbox
    .command("offer")
    .description("change an offer's state or the codes left on it, as the brand or the coupon network would")
    .argument("<base-gs1>", "the offer's baseGs1")
    .addOption(new Option("--state <state>", "the offer's new state").choices(OFFER_STATES))
    .option("--codes-available <n>", 'codes left on the offer: a whole number, or "unknown"');
  examples(offer, [
    "partner-cli sandbox offer 0098765000021 --state temporarily_unavailable",
    "partner-cli sandbox offer 0098765000021 --state available --codes-available 25",
  ]);
  action(rt, offer, () => import("../commands/sandbox/offer.js"), "sandboxOfferRun", { args: ["baseGs1"] });

  const alerts = sandbox
    .command("supply-alerts")
    .description(
      "who gets the supply alert emails (campaign.supply_low and supply_exhausted follow them; none: no such events); no option prints them",
    )
    .option("--recipients <emails>", "comma-separated email addresses")
    .option("--off", "no recipients: no supply alerts, no supply events");
  examples(alerts, [
    "partner-cli sandbox supply-alerts --recipients ops@example.com",
    "partner-cli sandbox supply-alerts --off",
  ]);
  action(rt, alerts, () => import("../commands/sandbox/supply-alerts.js"), "sandboxSupplyAlertsRun");

  const tz = sandbox
    .command("time-zone")
    .description("set the organization's reporting time zone (report days, presets and range reads)")
    .argument("<time-zone>", "an IANA time-zone name, such as Europe/Berlin");
  examples(tz, ["partner-cli sandbox time-zone Europe/Berlin"]);
  action(rt, tz, () => import("../commands/sandbox/time-zone.js"), "sandboxTimeZoneRun", {
    args: ["timeZone"],
  });

  const failJob = sandbox
    .command("fail-next-job")
    .description("the next assignment job queued for a campaign fails part-way (status failed, no event)")
    .argument("<campaign>", "campaign id or external reference")
    .option("--off", "the next job runs normally again");
  examples(failJob, [
    "partner-cli sandbox fail-next-job spring-oats",
    "partner-cli sandbox fail-next-job spring-oats --off",
  ]);
  action(rt, failJob, () => import("../commands/sandbox/fail-next-job.js"), "sandboxFailNextJobRun", {
    args: ["campaign"],
  });

  const view = sandbox
    .command("view")
    .description("one shopper opening a share link (linkViews count it once per origin per link per day)")
    .argument("<short-code>", "the link's shortCode")
    .option("--origin <origin>", "the shopper's network origin (default: this machine's address)");
  examples(view, ["partner-cli sandbox view AB3D-7KQ2 --origin 203.0.113.7"]);
  action(rt, view, () => import("../commands/sandbox/view.js"), "sandboxViewRun", { args: ["shortCode"] });

  registerFaults(sandbox, rt);
}

function registerFaults(sandbox: Command, rt: CliRuntime): void {
  const faults = sandbox
    .command("faults")
    .description(
      "change the sandbox's fault injection while it runs (settings left out keep their value); no option prints the settings",
    )
    .option("--latency <ms>", "add this many milliseconds to every API request", parseIntArg(0, 600_000))
    .option(
      "--rates <spec>",
      "faults at random: KIND=RATE,... (KIND 429, 502, 500, reset, reset-after, stall; RATE 0..1)",
    )
    .option("--next <kinds>", "the faults of the next matching requests, in order: KIND,KIND,...")
    .option(
      "--path-prefix <path>",
      'only API paths starting with this (e.g. /creators/batch); "any": every path',
    )
    .option("--method <method>", 'only requests with this method; "any": every method')
    .option("--stall <ms>", "how long a stall holds a request before dropping it", parseIntArg(0, 600_000))
    .option("--retry-after <seconds>", "Retry-After of an injected 429", parseIntArg(0, 86_400))
    .option("--rate-limit <n>", "answer 429 beyond N requests per second per key (0 = off)", parseIntArg(0))
    .option(
      "--feed-fault <spec>",
      "break a feed's contract: FEED:KIND@OFFSET[xCOUNT] (FEED redemptions or events; KIND cursor-loop, cursor-cycle, repeat-ids, time-backwards), or off",
    )
    .option("--clear", "back to the settings the sandbox started with (then apply the others given)");
  examples(faults, [
    "partner-cli sandbox faults",
    "partner-cli sandbox faults --next 500,429 --path-prefix /creators/batch",
    "partner-cli sandbox faults --rates 502=0.1 --latency 200",
    "partner-cli sandbox faults --feed-fault events:cursor-loop@200",
    "partner-cli sandbox faults --clear",
  ]);
  action(rt, faults, () => import("../commands/sandbox/faults.js"), "sandboxFaultsRun");
}
