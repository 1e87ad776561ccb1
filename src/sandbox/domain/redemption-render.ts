// Rendering redemptions of one organization: JSON text straight from the traffic columns (feed pages),
// or objects (events, GET /redemptions/{id}), with current names.
import type { CampaignReference, CreatorReference, Redemption } from "../../spec/redemptions.js";
import type { OrgState, CampaignRecord } from "../store.js";
import { brandOf, campaignReference, findCampaign } from "./campaigns.js";
import { FLAG_EXCLUDED, FLAG_TEST, NO_CREATOR, type Traffic } from "./traffic.js";

const P2: string[] = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, "0"));
let isoDay = Number.NaN;
let isoPrefix = "";
/** Epoch seconds → `YYYY-MM-DDThh:mm:ssZ`, with the date part cached. */
export function isoOfSec(sec: number): string {
  const d = Math.floor(sec / 86_400);
  if (d !== isoDay) {
    isoDay = d;
    isoPrefix = new Date(d * 86_400_000).toISOString().slice(0, 11);
  }
  const r = sec - d * 86_400;
  return `${isoPrefix}${P2[(r / 3600) | 0]}:${P2[((r % 3600) / 60) | 0]}:${P2[r % 60]}Z`;
}

/** The serialized code of a code index on an offer: the offer's baseGs1 and a 10-digit serial, as text. */
export function serializedGs1(baseGs1: string, code: number): string {
  return baseGs1 + serial10(code);
}
const ZEROS = "0000000000";
function serial10(code: number): string {
  const s = String(code + 1);
  return s.length >= 10 ? s : ZEROS.slice(s.length) + s;
}

interface CampaignFragment {
  rec: CampaignRecord | undefined;
  ref: CampaignReference;
  /** `"campaign":{..},"offer":{..},"brand":{..},"retailer":..` */
  json: string;
  /** baseGs1 as JSON string content (escaped, no quotes). */
  gs1Json: string;
  baseGs1: string;
  obj: Pick<Redemption, "campaign" | "offer" | "brand" | "retailer">;
}

/**
 * Renders redemptions of one organization with current names (campaign, offer, brand, creator).
 * Build one per request: it caches the per-campaign and per-creator JSON fragments.
 */
export class RedemptionRenderer {
  private readonly campaignCache = new Map<number, CampaignFragment>();
  private readonly creatorCache = new Map<number, { json: string; obj: CreatorReference | null }>();
  constructor(
    private readonly state: OrgState,
    private readonly t: Traffic,
  ) {}

  campaign(ci: number): CampaignFragment {
    let f = this.campaignCache.get(ci);
    if (!f) {
      const id = this.t.campaigns.get(ci);
      const rec = findCampaign(this.state, id);
      const ref: CampaignReference = rec
        ? campaignReference(rec)
        : { id, externalReference: null, name: "(unknown campaign)" };
      const live = rec ? this.state.offers.get(rec.offer.baseGs1) : undefined;
      const obj: CampaignFragment["obj"] = {
        campaign: ref,
        offer: {
          baseGs1: rec?.offer.baseGs1 ?? "",
          title: live ? live.title : (rec?.offer.title ?? null),
        },
        brand: rec ? brandOf(this.state, rec) : { id: "", name: "" },
        retailer: rec?.retailer ? { emailDomain: rec.retailer.emailDomain, name: rec.retailer.name } : null,
      };
      const j = JSON.stringify(obj);
      const gs1Json = JSON.stringify(obj.offer.baseGs1).slice(1, -1);
      f = { rec, ref, obj, json: j.slice(1, -1), baseGs1: obj.offer.baseGs1, gs1Json };
      this.campaignCache.set(ci, f);
    }
    return f;
  }

  creator(ci: number): { json: string; obj: CreatorReference | null } {
    let f = this.creatorCache.get(ci);
    if (!f) {
      if (ci === NO_CREATOR) f = { json: "null", obj: null };
      else {
        const externalId = this.t.creators.get(ci);
        const obj = { externalId, name: this.state.creators.get(externalId)?.name ?? externalId };
        f = { json: JSON.stringify(obj), obj };
      }
      this.creatorCache.set(ci, f);
    }
    return f;
  }

  exclusion(i: number): { excludedAt: string; reason: string | null } | null {
    if (!(this.t.redFlags.data[i]! & FLAG_EXCLUDED)) return null;
    return { excludedAt: isoOfSec(this.t.redExcludedAt.data[i]!), reason: this.t.reasonOf(i) };
  }

  /** One redemption as JSON text. */
  json(i: number): string {
    const t = this.t;
    const c = this.campaign(t.redCampaign.data[i]!);
    const flags = t.redFlags.data[i]!;
    const state = flags & FLAG_EXCLUDED ? "excluded" : flags & FLAG_TEST ? "test_code" : "counted";
    const exclusion = flags & FLAG_EXCLUDED ? JSON.stringify(this.exclusion(i)) : "null";
    return `{"id":"${t.redemptionIds.idOf(i)}","serializedGs1":"${c.gs1Json}${serial10(t.redCode.data[i]!)}","redeemedAt":"${isoOfSec(t.redRedeemedAt.data[i]!)}","recordedAt":"${isoOfSec(t.redRecordedAt.data[i]!)}",${c.json},"creator":${this.creator(t.redCreator.data[i]!).json},"countingState":"${state}","exclusion":${exclusion}}`;
  }

  /** JSON text of an array of redemptions. */
  jsonArray(indexes: ArrayLike<number>): string {
    let out = "[";
    for (let k = 0; k < indexes.length; k++)
      out += k === 0 ? this.json(indexes[k]!) : `,${this.json(indexes[k]!)}`;
    return `${out}]`;
  }

  /** One redemption as an object. */
  object(i: number): Redemption {
    const t = this.t;
    const c = this.campaign(t.redCampaign.data[i]!);
    return {
      id: t.redemptionIds.idOf(i),
      serializedGs1: serializedGs1(c.baseGs1, t.redCode.data[i]!),
      redeemedAt: isoOfSec(t.redRedeemedAt.data[i]!),
      recordedAt: isoOfSec(t.redRecordedAt.data[i]!),
      campaign: { ...c.obj.campaign },
      offer: { ...c.obj.offer },
      brand: { ...c.obj.brand },
      creator: copyCreator(this.creator(t.redCreator.data[i]!).obj),
      retailer: c.obj.retailer ? { ...c.obj.retailer } : null,
      countingState: t.countingState(i),
      exclusion: this.exclusion(i),
    };
  }
}

const copyCreator = (c: CreatorReference | null) => (c ? { ...c } : null);
