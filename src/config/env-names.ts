// Environment variables that look like misspellings of partner-cli's own (PARTNER_APIKEY,
// PARTNER_API_TOKEN, PARTNER_BASEURL, partner_api_key...). Pure: names in, names out; values are
// never read, so a secret in a misspelled variable cannot end up in a message.

/** The variables an operator sets, and that a misspelling is matched against. */
export const KNOWN_ENV_NAMES = [
  "PARTNER_API_KEY",
  "PARTNER_BASE_URL",
  "PARTNER_PROFILE",
  "PARTNER_SANDBOX",
  "PARTNER_CLI_CONFIG_DIR",
  "PARTNER_CLI_STATE_DIR",
  "PARTNER_NO_INPUT",
  "PARTNER_DEBUG",
  "PARTNER_SYNC_TO",
] as const;

/** Families of real tuning variables (PARTNER_RETRY_DEADLINE_MS, PARTNER_SANDBOX_DEBUG...): never misspellings. */
const KNOWN_PREFIXES = ["PARTNER_RETRY_", "PARTNER_SANDBOX_"];

/** Words people use for the same thing: a token is replaced by ours before comparing. */
const SYNONYMS: Record<string, string> = {
  TOKEN: "KEY",
  APIKEY: "KEY",
  APITOKEN: "KEY",
  URI: "URL",
  HOST: "URL",
  ENDPOINT: "URL",
  BASEURL: "URL",
  BASEURI: "URL",
  PROFILES: "PROFILE",
};
/** Tokens that may be left out or added without changing what is meant. */
const FILLERS = new Set(["API", "BASE", "CLI"]);

/** Upper case, only letters and digits: PARTNER_API_KEY and partner-apikey both become PARTNERAPIKEY. */
function plain(name: string): string {
  return name.toUpperCase().replace(/[^A-Z0-9]/g, "");
}

/** Token by token: synonyms replaced, fillers dropped. PARTNER_API_TOKEN and PARTNER_KEY both become PARTNERKEY. */
function canonical(name: string): string {
  return name
    .toUpperCase()
    .split(/[^A-Z0-9]+/)
    .filter(Boolean)
    .map((t) => SYNONYMS[t] ?? t)
    .filter((t) => !FILLERS.has(t))
    .join("");
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => {
    const row = new Array<number>(b.length + 1).fill(0);
    row[0] = i;
    return row;
  });
  for (let j = 0; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

const KNOWN = KNOWN_ENV_NAMES.map((name) => ({ name, plain: plain(name), canonical: canonical(name) }));

/** How far `name` is from the known name `k` (the smaller of the two comparisons). */
function distance(name: string, k: (typeof KNOWN)[number]): number {
  const p = editDistance(plain(name), k.plain);
  const c = editDistance(canonical(name), k.canonical);
  // The plain form keeps every letter, so it tolerates two slips; the canonical form is shorter
  // and already forgiving, so it tolerates one.
  return Math.min(p <= 2 ? p : Number.POSITIVE_INFINITY, c <= 1 ? c : Number.POSITIVE_INFINITY);
}

/**
 * The environment variables whose names look like misspellings of ours, each with a suggestion:
 * [["PARTNER_APIKEY", "did you mean PARTNER_API_KEY?"], ...], sorted by name. Only names are looked
 * at, never values.
 */
export function misspelledEnvNames(env: NodeJS.ProcessEnv): [string, string][] {
  const known = new Set<string>(KNOWN_ENV_NAMES);
  const out: [string, string][] = [];
  for (const name of Object.keys(env)) {
    if (known.has(name) || KNOWN_PREFIXES.some((p) => name.startsWith(p))) continue;
    let best: { name: string; d: number } | undefined;
    for (const k of KNOWN) {
      const d = distance(name, k);
      if (d !== Number.POSITIVE_INFINITY && (!best || d < best.d)) best = { name: k.name, d };
    }
    if (best) out.push([name, `did you mean ${best.name}?`]);
  }
  return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** One sentence naming the look-alike variables, or undefined when there are none. */
export function misspellingNote(env: NodeJS.ProcessEnv): string | undefined {
  const found = misspelledEnvNames(env);
  if (found.length === 0) return undefined;
  const list = found.map(([name, hint]) => `${name} (${hint})`).join(", ");
  return `${found.length === 1 ? "This variable is set but is not one partner-cli reads" : "These variables are set but are not ones partner-cli reads"}: ${list}.`;
}
