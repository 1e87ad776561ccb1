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
import { Column, StringTable, type Typed, type TypedCtor } from "./columns.js";
import { IdCodec } from "./traffic-ids.js";

export const FLAG_TEST = 1;
export const FLAG_EXCLUDED = 2;
/** Creator index of a code that reached no shopper (staff test code). */
export const NO_CREATOR = -1;

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
  /** Redemption indexes newest first, for the count it was built at (handlers/redemptions.ts; not persisted). */
  newestFirst: { n: number; order: Uint32Array } | undefined;
  /**
   * The feed page built ahead after the page before it was served, with what it was built from
   * (handlers/redemptions.ts; not persisted): the sandbox's change count, this version and count.
   */
  aheadPage:
    | { changes: number; version: number; count: number; start: number; size: number; body: Buffer }
    | undefined;
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
