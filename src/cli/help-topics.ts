// Help topics (`partner-cli help environment|exit-codes|formats|sandbox`): the text lives here once
// and is rendered for the terminal (help-command.ts), into docs/commands/help.md (docs.ts) and into
// the man pages (man.ts).

/** A paragraph of text, or a table of [term, description] rows. */
export type TopicBlock = string | [string, string][];

export interface HelpTopic {
  name: string;
  summary: string;
  blocks: TopicBlock[];
}

export const HELP_TOPICS: HelpTopic[] = [
  {
    name: "environment",
    summary: "environment variables partner-cli reads",
    blocks: [
      "Flags win over the environment, and the environment wins over the stored profile.",
      [
        ["PARTNER_PROFILE", "stored profile to use (like --profile, which wins)"],
        ["PARTNER_API_KEY", "API key for this run; wins over the stored key; never shown"],
        ["PARTNER_BASE_URL", "service base URL, the part before /api/partner/v1 (like --base-url)"],
        [
          "PARTNER_SANDBOX=1",
          "same as --sandbox: the embedded sandbox on purpose (1/true/yes; 0/false/no: off)",
        ],
        ["PARTNER_NO_INPUT=1", "same as --no-input: never prompt (1/true/yes; 0/false/no/empty: off)"],
        [
          "PARTNER_CLI_CONFIG_DIR",
          "directory for profiles, keys, saved cursors and their locks (default: %APPDATA%\\partner-cli on Windows, else $XDG_CONFIG_HOME/partner-cli or ~/.config/partner-cli)",
        ],
        [
          "PARTNER_CLI_STATE_DIR",
          "directory for the embedded sandbox's data (default: state/ in PARTNER_CLI_CONFIG_DIR when set, %LOCALAPPDATA%\\partner-cli on Windows, else $XDG_STATE_HOME/partner-cli or ~/.local/state/partner-cli)",
        ],
        ["PARTNER_DEBUG=1", "same as --verbose: a request trace on stderr, keys redacted"],
        ["PARTNER_SYNC_TO", "the database `partner-cli sync` copies into (like --to)"],
        [
          "PARTNER_RETRY_DEADLINE_MS",
          "stop retrying temporary failures this long after the first attempt (default 120000)",
        ],
        ["PARTNER_RETRY_BASE_MS", "base delay of the backoff between retries (default 300)"],
        ["PARTNER_REQUEST_TIMEOUT_MS", "total time for one request (default 60000)"],
        ["PARTNER_MAX_RESPONSE_BYTES", "largest answer read (default 64 MiB)"],
        [
          "PARTNER_FEED_MAX_DURATION",
          'longest an export, events sync or sync reads its feed (default 6h; "off": no bound), then exit 8',
        ],
        [
          "HTTPS_PROXY, HTTP_PROXY",
          "proxy for https:// and http:// requests, as http://[user:password@]host:port; the lower-case names win (https_proxy, http_proxy); never for the embedded sandbox",
        ],
        [
          "NO_PROXY",
          "hosts reached without the proxy, by commas: example.com or .example.com (and names below it), host:port, IP addresses, * for all; no_proxy wins",
        ],
        [
          "NODE_EXTRA_CA_CERTS",
          "a PEM file of extra CA certificates to trust (a private or corporate CA); a certificate that does not verify exits 4, never retried",
        ],
        ["NO_COLOR, CLICOLOR=0", "no colors (like --no-color)"],
        ["FORCE_COLOR, CLICOLOR_FORCE", "colors even when piped"],
        ["COLUMNS", "the width help and tables fit (default: the terminal's, 80 when piped)"],
      ],
      "--verbose names the proxy a command uses (its password as ****). Cron and CI do not read your shell's startup files: set PARTNER_API_KEY and PARTNER_BASE_URL in the job itself. More: docs/configuration.md.",
    ],
  },
  {
    name: "exit-codes",
    summary: "what each exit code means (scripts can rely on them)",
    blocks: [
      "Every command ends with one of these codes; the error itself is printed on stderr (with --json, as one JSON object).",
      [
        ["0", "success, also a re-run with nothing to do; help and --version"],
        [
          "1",
          "a bug in partner-cli, or a 500 whose outcome could not be settled; never the machine's failures",
        ],
        ["2", "usage error: bad flags, arguments or input; 400 validation_failed; a declined confirmation"],
        [
          "3",
          "finished with a negative outcome: rejected rows, a failed job, a signature that does not verify",
        ],
        [
          "4",
          "authentication, permission or configuration: 401, 403, no credentials without a terminal, a certificate refused, a proxy refusing (407) or unreachable; a database that refuses TLS the URL asks for; a feed that breaks its contract; a native module that does not load here",
        ],
        ["5", "not found: 404, a reference that matches nothing"],
        ["6", "conflict: 409 (ended campaign, reference in use, assignment running...)"],
        [
          "7",
          "temporary: 429/502/503/504, the network or a lost database connection still failing after retries; try again later",
        ],
        [
          "8",
          "still pending: a job not finished within --timeout; a feed read stopped at PARTNER_FEED_MAX_DURATION",
        ],
        [
          "9",
          "locked: another run is writing the same file, database or named cursor (any config dir or host)",
        ],
        [
          "10",
          "the machine or its storage: disk full, read-only, permission denied, I/O error; page the operator, don't report a bug",
        ],
        ["130", "interrupted (Ctrl-C); nothing half-written is left as if complete"],
      ],
      "More: docs/exit-codes.md.",
    ],
  },
  {
    name: "formats",
    summary: "what is printed where, and the flags that shape it",
    blocks: [
      "stdout carries data only (tables, TSV, JSON, exported rows); stderr carries notices, hints, progress, prompts and errors.",
      [
        [
          "(default)",
          "a table fitted to the terminal (COLUMNS honoured), tab-separated values with a header row when piped",
        ],
        [
          "--format FORMAT",
          "on every list, get and report: table, tsv, csv, json or ndjson (piped output is never cut)",
        ],
        ["--wide", "tables show every column at full width, however wide the terminal"],
        ["--out FILE", "lists and reports: the output into FILE (whole or not at all), format from its name"],
        ["--section NAME", "reports: one part on its own (totals, daily, creators; totals, brands)"],
        ["--json", "short for --format json: the API's own objects, a JSON array for a list"],
        ["--fields a,b.c", "only these fields: columns, or JSON keys (nested with dots)"],
        ["--jq EXPR", "filter the JSON output with jq's language (strings print raw)"],
        ["--quiet", "nothing on stderr but errors"],
        ["--no-color", "no ANSI colors (NO_COLOR, CLICOLOR=0 too)"],
      ],
      "Exports write CSV (or xlsx with --format xlsx); event and redemption feeds write NDJSON. With --json an error is one JSON object on stderr. More: docs/output.md.",
    ],
  },
  {
    name: "sandbox",
    summary: "the local sandbox: a faithful Partner API on your machine",
    blocks: [
      "With no profile and no PARTNER_API_KEY, commands use the embedded sandbox at a terminal (one stderr line says so). Scripts, cron and CI choose it with --sandbox or PARTNER_SANDBOX=1; without it they exit 4.",
      [
        [
          "partner-cli sandbox start",
          "serve a sandbox on a port for other programs (prints its URL and keys)",
        ],
        ["partner-cli sandbox reset", "back to the seeded state (organization, offers, roster)"],
        ["partner-cli sandbox advance 2h", "move the sandbox's clock forward"],
        ["partner-cli sandbox simulate", "make views, claims and redemptions for the active campaigns"],
        [
          "partner-cli sandbox brand-access BRAND lost",
          "make a brand's campaigns view-only; more controls: offer, supply-alerts, faults, fail-next-job",
        ],
      ],
      "Its offers are seeded around today: 0012345000011 (Crunchy Oats) and 0098765000014 (Sparkle Soda, retailer required) can be distributed. More: docs/sandbox.md.",
    ],
  },
];

export function findTopic(name: string): HelpTopic | undefined {
  return HELP_TOPICS.find((t) => t.name === name);
}
