// Shopper traffic of one organization, stored compactly: link views, codes (shopper claims and staff
// test codes) and redemptions as parallel typed-array columns, so a million redemptions take a few
// tens of megabytes and snapshot as base64 (see toJSON) instead of a million JSON objects.
//
// - Times are whole epoch seconds (the API's timestamps have whole seconds).
// - Campaigns, creators, origins and exclusion reasons are interned in string tables.
// - Redemptions are appended in recordedAt order (recordedAt never decreases), so a feed position is
//   an index into the columns; positions never change on correction.
// - Ids are not stored: a redemption id (and a claim id) is a UUID-shaped text computed from its index
//   through a keyed 48-bit permutation plus a per-organization salt, and parsed back on lookup.
import { randomBytes } from "node:crypto";
import type { CampaignReference, CreatorReference, Redemption } from "../../spec/redemptions.js";
import { area, type OrgState } from "../store.js";
import { brandOf, type CampaignRecord, campaignReference, findCampaign } from "./campaigns.js";

type Typed = Uint32Array | Int32Array | Uint8Array | Float64Array;
type TypedCtor<T extends Typed> = { new (n: number): T; BYTES_PER_ELEMENT: number };

/** A growable typed-array column. */
export class Column<T extends Typed> {
  data: T;
  private readonly ctor: TypedCtor<T>;
  constructor(ctor: TypedCtor<T>, capacity = 64) {
    this.ctor = ctor;
    this.data = new ctor(capacity);
  }
  ensure(n: number): void {
    if (n <= this.data.length) return;
    let cap = this.data.length || 64;
    while (cap < n) cap *= 2;
    const next = new this.ctor(cap);
    next.set(this.data as never);
    this.data = next;
  }
  toBase64(n: number): string {
    return Buffer.from(this.data.buffer, this.data.byteOffset, n * this.ctor.BYTES_PER_ELEMENT).toString(
      "base64",
    );
  }
  static fromBase64<T extends Typed>(ctor: TypedCtor<T>, b64: string, n: number): Column<T> {
    const col = new Column(ctor, Math.max(64, n));
    const buf = Buffer.from(b64, "base64");
    const view = new ctor(n);
    new Uint8Array(view.buffer).set(buf.subarray(0, n * ctor.BYTES_PER_ELEMENT));
    col.data.set(view as never);
    return col;
  }
}

/** Interned strings: index ↔ text. */
export class StringTable {
  readonly values: string[];
  private readonly index = new Map<string, number>();
  constructor(values: string[] = []) {
    this.values = values;
    for (let i = 0; i < values.length; i++) this.index.set(values[i]!, i);
  }
  intern(v: string): number {
    let i = this.index.get(v);
    if (i === undefined) {
      i = this.values.length;
      this.values.push(v);
      this.index.set(v, i);
    }
    return i;
  }
  find(v: string): number | undefined {
    return this.index.get(v);
  }
  get(i: number): string {
    return this.values[i]!;
  }
}

export const FLAG_TEST = 1;
export const FLAG_EXCLUDED = 2;
/** Creator index of a code that reached no shopper (staff test code). */
export const NO_CREATOR = -1;

// ---------------------------------------------------------------------------------------------
// Ids: a keyed Feistel permutation over 48 bits (two 24-bit halves), invertible.

const M24 = 0xffffff;
function roundFn(x: number, k: number): number {
  let h = Math.imul(x ^ k, 0x9e3779b1);
  h ^= h >>> 15;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h & M24;
}
function permute(i: number, keys: readonly number[]): [number, number] {
  let l = Math.floor(i / 0x1000000) & M24;
  let r = i % 0x1000000;
  for (const k of keys) {
    const t = r;
    r = (l ^ roundFn(r, k)) & M24;
    l = t;
  }
  return [l, r];
}
function unpermute(l: number, r: number, keys: readonly number[]): number {
  for (let j = keys.length - 1; j >= 0; j--) {
    const t = l;
    l = (r ^ roundFn(l, keys[j]!)) & M24;
    r = t;
  }
  return l * 0x1000000 + r;
}
const HEX2: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** Maps indexes to UUID-shaped ids and back, for one organization and one kind of record. */
export class IdCodec {
  readonly keys: number[];
  /** The constant tail: "-4xxx-yxxx-xxxxxxxxxxxx". */
  private readonly tail: string;
  constructor(salt: string) {
    const b = Buffer.from(salt, "hex");
    this.keys = [b.readUInt32BE(0), b.readUInt32BE(4), b.readUInt32BE(8), b.readUInt32BE(12)];
    const h = b.toString("hex");
    const variant = "89ab"[b[16 % b.length]! & 3]!;
    this.tail = `-4${h.slice(0, 3)}-${variant}${h.slice(3, 6)}-${h.slice(6, 18)}`;
  }
  static newSalt(): string {
    return randomBytes(16).toString("hex");
  }
  idOf(i: number): string {
    const [l, r] = permute(i, this.keys);
    return `${HEX2[l >>> 16]}${HEX2[(l >>> 8) & 255]}${HEX2[l & 255]}${HEX2[r >>> 16]}-${HEX2[(r >>> 8) & 255]}${HEX2[r & 255]}${this.tail}`;
  }
  /** The index of an id, or undefined when the id is not one of ours. */
  indexOf(id: string): number | undefined {
    const s = id.toLowerCase();
    if (s.length !== 36 || !s.endsWith(this.tail) || s[8] !== "-") return undefined;
    const head = s.slice(0, 8) + s.slice(9, 13);
    if (!/^[0-9a-f]{12}$/.test(head)) return undefined;
    return unpermute(Number.parseInt(head.slice(0, 6), 16), Number.parseInt(head.slice(6), 16), this.keys);
  }
}

// ---------------------------------------------------------------------------------------------

export interface SupplyAlertState {
  low: boolean;
  exhausted: boolean;
}

/** The traffic of one organization. */
export class Traffic {
  readonly redemptionSalt: string;
  readonly claimSalt: string;
  readonly redemptionIds: IdCodec;
  readonly claimIds: IdCodec;
  /** Campaign ids by index. */
  readonly campaigns: StringTable;
  /** Creator externalIds by index. */
  readonly creators: StringTable;
  /** Network origins of views. */
  readonly origins: StringTable;
  /** Exclusion reasons; index 0 is "no reason" (null). */
  readonly reasons: StringTable;

  // Views: one row per link open.
  viewCount = 0;
  readonly viewCampaign = new Column(Uint32Array);
  readonly viewCreator = new Column(Uint32Array);
  readonly viewOrigin = new Column(Uint32Array);
  readonly viewAt = new Column(Uint32Array);

  // Codes: shopper claims (creator ≥ 0) and staff test codes (creator NO_CREATOR).
  codeCount = 0;
  readonly codeCampaign = new Column(Uint32Array);
  readonly codeCreator = new Column(Int32Array);
  readonly codeIssuedAt = new Column(Uint32Array);
  /** Redemption index of the code, -1 while unredeemed. */
  readonly codeRedemption = new Column(Int32Array);

  // Redemptions, in recordedAt order.
  redemptionCount = 0;
  readonly redCode = new Column(Uint32Array);
  readonly redCampaign = new Column(Uint32Array);
  readonly redCreator = new Column(Int32Array);
  readonly redRedeemedAt = new Column(Uint32Array);
  readonly redRecordedAt = new Column(Uint32Array);
  readonly redFlags = new Column(Uint8Array);
  readonly redExcludedAt = new Column(Uint32Array);
  readonly redReason = new Column(Uint32Array);

  /** Per campaign id: which supply alerts of the current incident were sent. */
  readonly supplyAlerts = new Map<string, SupplyAlertState>();
  /** Unredeemed codes per campaign index, for fast picking (rebuilt lazily, not persisted). */
  private unredeemedCache: Map<number, { shopper: number[]; test: number[] }> | undefined;
  /** Bumped on every change; caches key on it. */
  version = 0;
  /**
   * The latest asOf handed out by a range read (epoch seconds). Redemptions recorded afterwards get a
   * later recordedAt, so a pinned asOf keeps leaving them out.
   */
  asOfFloor = 0;

  constructor(init?: { redemptionSalt?: string; claimSalt?: string }) {
    this.redemptionSalt = init?.redemptionSalt ?? IdCodec.newSalt();
    this.claimSalt = init?.claimSalt ?? IdCodec.newSalt();
    this.redemptionIds = new IdCodec(this.redemptionSalt);
    this.claimIds = new IdCodec(this.claimSalt);
    this.campaigns = new StringTable();
    this.creators = new StringTable();
    this.origins = new StringTable();
    this.reasons = new StringTable([""]);
  }

  touch(): void {
    this.version++;
  }

  get lastRecordedAt(): number {
    return this.redemptionCount === 0 ? 0 : this.redRecordedAt.data[this.redemptionCount - 1]!;
  }

  addView(campaign: number, creator: number, origin: number, at: number): void {
    const i = this.viewCount++;
    this.viewCampaign.ensure(i + 1);
    this.viewCreator.ensure(i + 1);
    this.viewOrigin.ensure(i + 1);
    this.viewAt.ensure(i + 1);
    this.viewCampaign.data[i] = campaign;
    this.viewCreator.data[i] = creator;
    this.viewOrigin.data[i] = origin;
    this.viewAt.data[i] = at;
  }

  reserveCodes(n: number): void {
    const total = this.codeCount + n;
    this.codeCampaign.ensure(total);
    this.codeCreator.ensure(total);
    this.codeIssuedAt.ensure(total);
    this.codeRedemption.ensure(total);
  }

  /** Appends a code (call reserveCodes first for bulk). Returns its index. */
  addCode(campaign: number, creator: number, issuedAt: number): number {
    const i = this.codeCount++;
    this.reserveCodes(0);
    this.codeCampaign.data[i] = campaign;
    this.codeCreator.data[i] = creator;
    this.codeIssuedAt.data[i] = issuedAt;
    this.codeRedemption.data[i] = -1;
    if (this.unredeemedCache) {
      const u = this.unredeemed(campaign);
      (creator === NO_CREATOR ? u.test : u.shopper).push(i);
    }
    return i;
  }

  reserveRedemptions(n: number): void {
    const total = this.redemptionCount + n;
    for (const c of [
      this.redCode,
      this.redCampaign,
      this.redCreator,
      this.redRedeemedAt,
      this.redRecordedAt,
      this.redFlags,
      this.redExcludedAt,
      this.redReason,
    ] as Column<Typed>[])
      c.ensure(total);
  }

  /** Appends a redemption of `code` (recordedAt must not be before the last one). Returns its index. */
  addRedemption(code: number, redeemedAt: number, recordedAt: number): number {
    const i = this.redemptionCount++;
    this.reserveRedemptions(0);
    const creator = this.codeCreator.data[code]!;
    this.redCode.data[i] = code;
    this.redCampaign.data[i] = this.codeCampaign.data[code]!;
    this.redCreator.data[i] = creator;
    this.redRedeemedAt.data[i] = redeemedAt;
    this.redRecordedAt.data[i] = recordedAt;
    this.redFlags.data[i] = creator === NO_CREATOR ? FLAG_TEST : 0;
    this.redExcludedAt.data[i] = 0;
    this.redReason.data[i] = 0;
    this.codeRedemption.data[code] = i;
    return i;
  }

  /** Unredeemed codes of a campaign index (shopper codes and test codes), oldest first. */
  unredeemed(campaign: number): { shopper: number[]; test: number[] } {
    if (!this.unredeemedCache) {
      const m = new Map<number, { shopper: number[]; test: number[] }>();
      const camp = this.codeCampaign.data;
      const creator = this.codeCreator.data;
      const red = this.codeRedemption.data;
      for (let i = 0; i < this.codeCount; i++) {
        if (red[i] !== -1) continue;
        let u = m.get(camp[i]!);
        if (!u) {
          u = { shopper: [], test: [] };
          m.set(camp[i]!, u);
        }
        (creator[i] === NO_CREATOR ? u.test : u.shopper).push(i);
      }
      this.unredeemedCache = m;
    }
    let u = this.unredeemedCache.get(campaign);
    if (!u) {
      u = { shopper: [], test: [] };
      this.unredeemedCache.set(campaign, u);
    }
    return u;
  }

  countingState(i: number): "counted" | "excluded" | "test_code" {
    const f = this.redFlags.data[i]!;
    if (f & FLAG_EXCLUDED) return "excluded";
    if (f & FLAG_TEST) return "test_code";
    return "counted";
  }

  reasonOf(i: number): string | null {
    const r = this.redReason.data[i]!;
    return r === 0 ? null : this.reasons.get(r);
  }

  toJSON(): unknown {
    const cols = <T extends Typed>(n: number, c: Record<string, Column<T>>) =>
      Object.fromEntries(Object.entries(c).map(([k, v]) => [k, v.toBase64(n)]));
    return {
      $traffic: 1,
      redemptionSalt: this.redemptionSalt,
      claimSalt: this.claimSalt,
      campaigns: this.campaigns.values,
      creators: this.creators.values,
      origins: this.origins.values,
      reasons: this.reasons.values,
      supplyAlerts: [...this.supplyAlerts.entries()],
      asOfFloor: this.asOfFloor,
      viewCount: this.viewCount,
      views: cols(this.viewCount, {
        campaign: this.viewCampaign,
        creator: this.viewCreator,
        origin: this.viewOrigin,
        at: this.viewAt,
      }),
      codeCount: this.codeCount,
      codes: {
        ...cols(this.codeCount, {
          campaign: this.codeCampaign,
          issuedAt: this.codeIssuedAt,
        }),
        ...cols(this.codeCount, { creator: this.codeCreator, redemption: this.codeRedemption }),
      },
      redemptionCount: this.redemptionCount,
      redemptions: {
        ...cols(this.redemptionCount, {
          code: this.redCode,
          campaign: this.redCampaign,
          redeemedAt: this.redRedeemedAt,
          recordedAt: this.redRecordedAt,
          excludedAt: this.redExcludedAt,
          reason: this.redReason,
        }),
        ...cols(this.redemptionCount, { creator: this.redCreator }),
        ...cols(this.redemptionCount, { flags: this.redFlags }),
      },
    };
  }

  static fromJSON(raw: Record<string, unknown>): Traffic {
    const j = raw as {
      redemptionSalt: string;
      claimSalt: string;
      campaigns: string[];
      creators: string[];
      origins: string[];
      reasons: string[];
      supplyAlerts: [string, SupplyAlertState][] | Map<string, SupplyAlertState>;
      viewCount: number;
      views: Record<string, string>;
      codeCount: number;
      codes: Record<string, string>;
      redemptionCount: number;
      redemptions: Record<string, string>;
    };
    const t = new Traffic({ redemptionSalt: j.redemptionSalt, claimSalt: j.claimSalt });
    for (const v of j.campaigns) t.campaigns.intern(v);
    for (const v of j.creators) t.creators.intern(v);
    for (const v of j.origins) t.origins.intern(v);
    for (const v of j.reasons.slice(1)) t.reasons.intern(v);
    for (const [k, v] of j.supplyAlerts instanceof Map ? j.supplyAlerts : new Map(j.supplyAlerts))
      t.supplyAlerts.set(k, v);
    const load = <T extends Typed>(
      target: Column<T>,
      ctor: TypedCtor<T>,
      b64: string | undefined,
      n: number,
    ) => {
      const c = Column.fromBase64(ctor, b64 ?? "", n);
      target.data = c.data;
    };
    t.asOfFloor = (raw.asOfFloor as number | undefined) ?? 0;
    t.viewCount = j.viewCount;
    load(t.viewCampaign, Uint32Array, j.views.campaign, j.viewCount);
    load(t.viewCreator, Uint32Array, j.views.creator, j.viewCount);
    load(t.viewOrigin, Uint32Array, j.views.origin, j.viewCount);
    load(t.viewAt, Uint32Array, j.views.at, j.viewCount);
    t.codeCount = j.codeCount;
    load(t.codeCampaign, Uint32Array, j.codes.campaign, j.codeCount);
    load(t.codeCreator, Int32Array, j.codes.creator, j.codeCount);
    load(t.codeIssuedAt, Uint32Array, j.codes.issuedAt, j.codeCount);
    load(t.codeRedemption, Int32Array, j.codes.redemption, j.codeCount);
    t.redemptionCount = j.redemptionCount;
    const r = j.redemptions;
    const n = j.redemptionCount;
    load(t.redCode, Uint32Array, r.code, n);
    load(t.redCampaign, Uint32Array, r.campaign, n);
    load(t.redCreator, Int32Array, r.creator, n);
    load(t.redRedeemedAt, Uint32Array, r.redeemedAt, n);
    load(t.redRecordedAt, Uint32Array, r.recordedAt, n);
    load(t.redFlags, Uint8Array, r.flags, n);
    load(t.redExcludedAt, Uint32Array, r.excludedAt, n);
    load(t.redReason, Uint32Array, r.reason, n);
    return t;
  }
}

/** The organization's traffic (revived from a snapshot on first use after a restart). */
export function trafficOf(state: OrgState): Traffic {
  const v = area<unknown>(state, "traffic", () => new Traffic());
  if (v instanceof Traffic) return v;
  const t = Traffic.fromJSON(v as Record<string, unknown>);
  state.areas.traffic = t;
  return t;
}

// ---------------------------------------------------------------------------------------------
// Rendering redemptions: JSON text straight from the columns (feed pages), or objects (events, GET).

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

// ---------------------------------------------------------------------------------------------
// Feed pages as bytes: the same JSON as RedemptionRenderer.json, written straight into one Buffer
// (constant parts copied, digits and hex written byte by byte), so serving a 1,000-row page costs
// far less than the client's parse of it.

const enc = (s: string) => Buffer.from(s, "utf8");
const B_OPEN = enc('{"id":"');
const B_GS1 = enc('","serializedGs1":"');
const B_REDEEMED = enc('","redeemedAt":"');
const B_RECORDED = enc('","recordedAt":"');
const B_QUOTE_COMMA = enc('",');
const B_CREATOR = enc(',"creator":');
const B_COUNTED = enc(',"countingState":"counted","exclusion":null}');
const B_TEST = enc(',"countingState":"test_code","exclusion":null}');
const B_EXCLUDED = enc(',"countingState":"excluded","exclusion":');
const HEX_CODES = Buffer.from("0123456789abcdef", "latin1");
const DASH = 0x2d;
const ZERO_CODE = 0x30;

export class FeedPageWriter {
  private buf: Buffer;
  private pos = 0;
  private readonly campaignBytes = new Map<number, { frag: Buffer; gs1: Buffer }>();
  private readonly creatorBytes = new Map<number, Buffer>();
  private readonly idTail: Buffer;
  private dayKey = Number.NaN;
  private dayPrefix: Buffer = Buffer.alloc(0);
  constructor(
    private readonly r: RedemptionRenderer,
    private readonly t: Traffic,
    capacity = 64 * 1024,
  ) {
    this.buf = Buffer.allocUnsafe(capacity);
    this.idTail = enc(t.redemptionIds.idOf(0).slice(13));
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.pos + n) cap *= 2;
    const next = Buffer.allocUnsafe(cap);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  raw(b: Buffer): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  text(s: string): void {
    this.raw(enc(s));
  }

  private hex24(v: number): void {
    const b = this.buf;
    let p = this.pos;
    for (let shift = 20; shift >= 0; shift -= 4) b[p++] = HEX_CODES[(v >>> shift) & 15]!;
    this.pos = p;
  }

  private ts(sec: number): void {
    const d = Math.floor(sec / 86_400);
    if (d !== this.dayKey) {
      this.dayKey = d;
      this.dayPrefix = enc(new Date(d * 86_400_000).toISOString().slice(0, 11));
    }
    this.buf.set(this.dayPrefix, this.pos);
    this.pos += 11;
    const r = sec - d * 86_400;
    const b = this.buf;
    let p = this.pos;
    const two = (n: number, sep: number) => {
      b[p++] = ZERO_CODE + ((n / 10) | 0);
      b[p++] = ZERO_CODE + (n % 10);
      b[p++] = sep;
    };
    two((r / 3600) | 0, 0x3a);
    two(((r % 3600) / 60) | 0, 0x3a);
    two(r % 60, 0x5a);
    this.pos = p;
  }

  /** Appends redemption i as JSON. */
  row(i: number): void {
    const t = this.t;
    const ci = t.redCampaign.data[i]!;
    let cb = this.campaignBytes.get(ci);
    if (!cb) {
      const c = this.r.campaign(ci);
      cb = { frag: enc(c.json), gs1: enc(c.gs1Json) };
      this.campaignBytes.set(ci, cb);
    }
    const cr = t.redCreator.data[i]!;
    let crb = this.creatorBytes.get(cr);
    if (!crb) {
      crb = enc(this.r.creator(cr).json);
      this.creatorBytes.set(cr, crb);
    }
    this.ensure(300 + cb.frag.length + cb.gs1.length + crb.length);
    const b = this.buf;
    b.set(B_OPEN, this.pos);
    this.pos += B_OPEN.length;
    // id: 8-4 hex of the permuted position, then the organization's constant tail.
    const [l, rr] = permute(i, t.redemptionIds.keys);
    this.hex24(l);
    this.hex24(rr);
    // Insert the dash after 8 hex characters: shift the last 4 one to the right.
    const p = this.pos;
    b.copyWithin(p - 3, p - 4, p);
    b[p - 4] = DASH;
    this.pos = p + 1;
    b.set(this.idTail, this.pos);
    this.pos += this.idTail.length;
    b.set(B_GS1, this.pos);
    this.pos += B_GS1.length;
    b.set(cb.gs1, this.pos);
    this.pos += cb.gs1.length;
    // 10-digit serial (code + 1), more digits if ever needed.
    const serial = String(t.redCode.data[i]! + 1);
    for (let k = serial.length; k < 10; k++) b[this.pos++] = ZERO_CODE;
    for (let k = 0; k < serial.length; k++) b[this.pos++] = serial.charCodeAt(k);
    b.set(B_REDEEMED, this.pos);
    this.pos += B_REDEEMED.length;
    this.ts(t.redRedeemedAt.data[i]!);
    b.set(B_RECORDED, this.pos);
    this.pos += B_RECORDED.length;
    this.ts(t.redRecordedAt.data[i]!);
    b.set(B_QUOTE_COMMA, this.pos);
    this.pos += B_QUOTE_COMMA.length;
    b.set(cb.frag, this.pos);
    this.pos += cb.frag.length;
    b.set(B_CREATOR, this.pos);
    this.pos += B_CREATOR.length;
    b.set(crb, this.pos);
    this.pos += crb.length;
    const f = t.redFlags.data[i]!;
    if (f & FLAG_EXCLUDED) {
      this.raw(B_EXCLUDED);
      this.text(`${JSON.stringify(this.r.exclusion(i))}}`);
    } else this.raw(f & FLAG_TEST ? B_TEST : B_COUNTED);
  }

  /** The bytes written so far. */
  bytes(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}
