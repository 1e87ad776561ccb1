// sandbox simulate: a thin call to POST /_sandbox/simulate on the target sandbox; prints the result.
// --campaign is resolved like every CAMPAIGN argument (id or external reference, exit 5 when it names
// nothing); the sandbox's notes (why less than asked was generated) are warnings on stderr; when
// nothing that was asked for could be generated, the run says so and exits 3.
import { type SimulateRequest, simulateTraffic } from "../../api/sandbox-control.js";
import type { Context } from "../../context.js";
import { PartialFailure } from "../../errors.js";
import { printRecord } from "../../io/render.js";
import { resolveCampaignFilter } from "../campaigns/resolve.js";

export type SandboxSimulateOptions = SimulateRequest;

/** The counts a call can ask for, as the flags and the answer name them. */
const KINDS = [
  ["views", "views"],
  ["claims", "claims"],
  ["testCodes", "test codes"],
  ["redemptions", "redemptions"],
  ["testRedemptions", "test redemptions"],
  ["exclusions", "exclusions"],
  ["restorations", "restorations"],
] as const;

/** The campaigns simulated, as one line: "Spring oats launch (spring-oats), Fall granola (<id>)". */
function campaignsLine(v: unknown): unknown {
  if (!Array.isArray(v)) return v;
  if (v.length === 0) return "none";
  return v
    .map((c: { id?: string; externalReference?: string | null; name?: string }) =>
      c.name ? `${c.name} (${c.externalReference ?? c.id})` : (c.externalReference ?? c.id),
    )
    .join(", ");
}

export async function sandboxSimulateRun(opts: SandboxSimulateOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const campaign = await resolveCampaignFilter(api, opts.campaign);
  // --no-events sends events: false; the default (every event, as the spec says) sends nothing.
  const result = await simulateTraffic(api, {
    ...opts,
    campaign,
    events: opts.events === false ? false : undefined,
  });
  const notes = Array.isArray(result.notes) ? result.notes.map(String) : [];
  printRecord(
    ctx.io,
    result,
    Object.entries(result)
      .filter(([k]) => k !== "notes")
      .map(([k, v]) => [k, k === "campaigns" ? campaignsLine(v) : v]),
  );
  for (const n of notes) ctx.io.err(`Warning: ${n}`);

  // Which kinds were asked for: the counts given above zero; none given = the sandbox's defaults.
  const given = KINDS.filter(([k]) => opts[k] !== undefined);
  const asked = given.length === 0 ? KINDS : given.filter(([k]) => (opts[k] ?? 0) > 0);
  if (asked.length === 0) return;
  let generated = 0;
  for (const [k] of asked) generated += Number(result[k]) || 0;
  if (generated === 0) {
    throw new PartialFailure(
      `Nothing that was asked for could be generated (${asked.map(([, what]) => `0 ${what}`).join(", ")}).`,
      notes.length
        ? "The warnings above say why."
        : "Check that the campaign is active, has active links and codes left.",
    );
  }
}
