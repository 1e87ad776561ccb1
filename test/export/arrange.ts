// Reads a sandbox's redemption feed with a raw loop (campaigns and simulated traffic are arranged with
// test/helpers/fixtures.ts).
import { http, type RunningSandbox } from "../helpers/sandbox.js";

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
