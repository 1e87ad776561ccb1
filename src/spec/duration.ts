// The one duration grammar: "90s", "5m", "2h", "1d", "250ms", decimals ("1.5h") and sums of them
// ("1h30m"), no spaces. Used by the CLI's duration flags and arguments (src/cli/define.ts) and by the
// sandbox's clock control (POST /_sandbox/advance). No zod here: the declarations import it eagerly.

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
type Unit = keyof typeof UNIT_MS;

/** How a message shows the grammar. */
export const DURATION_EXAMPLES = '"90s", "5m", "2h" or "1d"';

export interface DurationGrammar {
  /** Whether plain digits ("5000") mean milliseconds (the CLI) or are refused (the sandbox's body). */
  bareMilliseconds?: boolean;
}

/** Milliseconds (rounded to a whole number), or undefined when `text` is not a duration. */
export function parseDurationMs(text: string, grammar: DurationGrammar = {}): number | undefined {
  const v = text.trim();
  if (/^\d+$/.test(v)) return grammar.bareMilliseconds === false ? undefined : Number(v);
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(v); m; m = re.exec(v)) {
    total += Number(m[1]) * UNIT_MS[m[2] as Unit];
    matched = re.lastIndex;
  }
  if (v.length === 0 || matched !== v.length) return undefined;
  return Math.round(total);
}
