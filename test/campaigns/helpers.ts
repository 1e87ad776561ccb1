import { http, type RunningSandbox } from "../helpers/sandbox.js";

/** Calendar day `offset` days from today (UTC). */
export function day(offset = 0): string {
  return new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
}

/** Adds `n` active creators `prefix-00001`… with POST /creators/batch (1,000 per call). */
export async function addCreators(sb: RunningSandbox, n: number, prefix = "bulk"): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < n; start += 1000) {
    const creators = [];
    for (let i = start; i < Math.min(n, start + 1000); i++) {
      const externalId = `${prefix}-${String(i + 1).padStart(5, "0")}`;
      ids.push(externalId);
      creators.push({ externalId, name: `Creator ${i + 1}` });
    }
    const r = await http(sb, "POST", "/creators/batch", { body: { creators } });
    if (r.status !== 200 || r.body.summary.rejected)
      throw new Error(`batch: ${r.status} ${JSON.stringify(r.body)}`);
  }
  return ids;
}

export async function countCampaigns(sb: RunningSandbox, ref: string): Promise<number> {
  const r = await http(sb, "GET", `/campaigns?externalReference=${encodeURIComponent(ref)}`);
  return r.body.totalCount;
}
