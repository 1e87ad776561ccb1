// Arranges redemptions in a sandbox through its API and control routes: an active campaign with
// links for the demo roster, then simulated claims and redemptions.
import { http, type RunningSandbox } from "../helpers/sandbox.js";
import { SEED } from "../../src/sandbox/seed.js";

export async function activeCampaign(
  sb: RunningSandbox,
  ref = `exp-${Math.random().toString(36).slice(2, 8)}`,
): Promise<string> {
  const today = new Date(sb.sandbox.clock.nowMs() - 2 * 86_400_000).toISOString().slice(0, 10);
  const later = new Date(sb.sandbox.clock.nowMs() + 60 * 86_400_000).toISOString().slice(0, 10);
  const created = await http(sb, "POST", "/campaigns", {
    body: {
      name: `Export test ${ref}`,
      baseGs1: SEED.offers.oatsUnknownSupply,
      dates: { from: today, through: later },
      codeLimit: 5_000_000,
      commission: { rate: 0.1, estimatedUnitSalePrice: 4.99 },
      externalReference: ref,
    },
  });
  if (created.status !== 201)
    throw new Error(`campaign create: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.id as string;
  const act = await http(sb, "POST", `/campaigns/${id}/status`, { body: { status: "active" } });
  if (act.status !== 200) throw new Error(`activate: ${act.status} ${JSON.stringify(act.body)}`);
  const job = await http(sb, "POST", `/campaigns/${id}/assignments`, { body: { scope: "roster" } });
  if (job.status !== 202) throw new Error(`assign: ${job.status} ${JSON.stringify(job.body)}`);
  for (let i = 0; i < 200; i++) {
    const j = await http(sb, "GET", `/campaigns/${id}/assignments/${job.body.job.id}`);
    if (j.body.status === "completed" || j.body.status === "failed") break;
    await new Promise((r) => setTimeout(r, 25));
  }
  return id;
}

export async function simulate(sb: RunningSandbox, body: Record<string, unknown>): Promise<any> {
  const r = await http(sb, "POST", "/simulate", { control: true, body });
  if (r.status !== 200) throw new Error(`simulate: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Every redemption id in the feed, read with a raw loop. */
export async function feedIds(sb: RunningSandbox): Promise<string[]> {
  const ids: string[] = [];
  let after: string | undefined;
  for (;;) {
    const r = await http(
      sb,
      "GET",
      `/redemptions?limit=1000${after ? `&after=${encodeURIComponent(after)}` : ""}`,
    );
    if (r.status !== 200) throw new Error(`feed: ${r.status}`);
    for (const it of r.body.items) ids.push(it.id);
    if (r.body.nextCursor === null) break;
    if (r.body.items.length === 0) break;
    after = r.body.nextCursor;
  }
  return [...new Set(ids)];
}
