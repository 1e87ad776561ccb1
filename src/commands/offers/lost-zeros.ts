// An offer id typed without its leading zeros (a spreadsheet that took `0012345000011` for the
// number 12345000011): the spec keeps baseGs1 as text, so `12345000011` is another id. When no
// offer has the id typed, the offer whose id is the same digits after leading zeros is suggested.
import type { ApiClient } from "../../api/client.js";
import { allOffers } from "../../api/offers.js";

/** The baseGs1 that `typed` (digits) is with its leading zeros lost, if an offer has it. */
export async function withLostZeros(api: ApiClient, typed: string): Promise<string | undefined> {
  const t = typed.trim();
  if (!/^\d+$/.test(t)) return undefined;
  const digits = t.replace(/^0+/, "");
  try {
    for await (const o of allOffers(api, { pageSize: 200 }))
      if (o.baseGs1 !== t && /^0+\d/.test(o.baseGs1) && o.baseGs1.replace(/^0+/, "") === digits)
        return o.baseGs1;
  } catch {
    // The suggestion is a courtesy: a failed read leaves the error as it was.
  }
  return undefined;
}

/** " Did you mean 0012345000011? (a spreadsheet drops leading zeros; offer ids are text)" or "". */
export function lostZerosNote(found: string | undefined): string {
  return found
    ? ` Did you mean ${found}? (Leading zeros are part of an offer id; spreadsheets drop them.)`
    : "";
}
