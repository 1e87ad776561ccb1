// Seed data: two organizations (plus a deactivated one), keys of every kind, brands, and offers in
// every state with the awkward cases (savings null, barcodes with leading zeros, retailer rules,
// codesAvailable null). "demo" adds a small roster; "empty" leaves the roster empty.
import { randomBytes, randomUUID } from "node:crypto";
import type { Offer, OfferState } from "../spec/offers.js";
import { toIso } from "./clock.js";
import type { BrandRecord, KeyRecord, OrgState, Organization, SandboxStore } from "./store.js";

export type SeedKind = "demo" | "empty";

export interface TestKeys {
  /** Write key of a second organization. */
  otherOrgKey: string;
  /** Read-only key of the main organization. */
  readOnlyKey: string;
  /** A revoked key (401). */
  revokedKey: string;
  /** A key of a deactivated organization (401). */
  deactivatedOrgKey: string;
}

const newKey = (prefix: string) => `${prefix}_${randomBytes(18).toString("base64url")}`;

function day(baseMs: number, offsetDays: number): string {
  return new Date(baseMs + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

interface OfferSeed {
  baseGs1: string;
  brand: BrandRecord;
  title: string | null;
  description?: string | null;
  state: OfferState;
  savingsCents: number | null;
  productBarcodes: string[];
  campaignDays?: [number, number] | null;
  redemptionDays: [number, number] | null;
  codesAvailable: number | null;
  retailerChoiceRequired?: boolean;
  allowedRetailers?: string[];
}

function offer(s: OfferSeed, nowMs: number): Offer {
  const span = (d: [number, number] | null | undefined) =>
    d ? { from: day(nowMs, d[0]), through: day(nowMs, d[1]) } : null;
  return {
    baseGs1: s.baseGs1,
    brand: { id: s.brand.id, name: s.brand.name },
    title: s.title,
    description: s.description ?? null,
    state: s.state,
    canDistribute: s.state === "available",
    savings:
      s.savingsCents === null
        ? null
        : { cents: s.savingsCents, display: `$${(s.savingsCents / 100).toFixed(2)} off` },
    productBarcodes: s.productBarcodes,
    campaignDates: span(s.campaignDays === undefined ? s.redemptionDays : s.campaignDays),
    redemptionDates: span(s.redemptionDays),
    codesAvailable: s.codesAvailable,
    retailerChoiceRequired: s.retailerChoiceRequired ?? false,
    allowedRetailers: s.allowedRetailers ?? [],
    lastUpdatedAt: toIso(nowMs - 3_600_000),
  };
}

/** Ids to reuse (on reset, so existing keys and organization ids keep working), in creation order. */
interface Reuse {
  orgIds: string[];
  keys: string[];
  /** Brand ids by "organization name/brand name", so brandId filters keep working after a reset. */
  brandIds: Map<string, string>;
}

function addOrg(
  store: SandboxStore,
  name: string,
  tz: string,
  reuse: Reuse,
  more: Partial<Organization> = {},
): OrgState {
  const org: Organization = {
    id: reuse.orgIds.shift() ?? randomUUID(),
    name,
    reportingTimeZone: tz,
    active: true,
    alertRecipients: [],
    ...more,
  };
  store.organizations.set(org.id, org);
  return store.orgs.get(org.id)!;
}

function addKey(
  store: SandboxStore,
  reuse: Reuse,
  orgId: string,
  name: string,
  canWrite: boolean,
  prefix: string,
  revoked = false,
): KeyRecord {
  const k: KeyRecord = { key: reuse.keys.shift() ?? newKey(prefix), name, orgId, canWrite, revoked };
  store.keys.set(k.key, k);
  return k;
}

function addBrand(state: OrgState, name: string, reuse: Reuse): BrandRecord {
  const b: BrandRecord = {
    id: reuse.brandIds.get(`${state.org.name}/${name}`) ?? randomUUID(),
    name,
    access: true,
  };
  state.brands.set(b.id, b);
  return b;
}

/**
 * The seeded ids tests and docs refer to by name (the data below uses them; keep both in step).
 * Brand ids are random per store, so brands are named; retailers are email domains.
 */
export const SEED = {
  offers: {
    /** Crunchy Oats 12oz, available, 50,000 codes, redemption days -30..+180. */
    oats: "0012345000011",
    /** Crunchy Oats Family Size, available, codesAvailable null (no supply limit). */
    oatsUnknownSupply: "0012345000028",
    /** Sparkle Soda 6-pack, retailer choice required (freshmart, cornerstore), 2,000 codes. */
    sodaRetail: "0098765000014",
    /** Sparkle Soda Zero, 25 codes, retailer optional (freshmart). */
    sodaZero: "0098765000021",
    /** Trail Mix (spring), not yet started. */
    notYetStarted: "0055555000019",
    /** Trail Mix (last year), expired. */
    expired: "0055555000026",
    /** Trail Mix, temporarily unavailable, no title. */
    tempUnavailable: "0055555000033",
    /** Crunchy Oats Bars, not distributable. */
    notDistributable: "0012345000035",
    /** Globex Gum: the other organization's offer. */
    otherOrg: "0044444000017",
  },
  brands: {
    oats: "Crunchy Oats Co.",
    soda: "Sparkle Soda",
    snacks: "Trailside Snacks",
    otherOrg: "Globex Gum",
  },
  retailers: {
    freshmart: "freshmart.example",
    cornerstore: "cornerstore.example",
  },
  orgs: {
    main: "Northwind Creators",
    other: "Globex Partners",
    inactive: "Defunct Foods",
  },
} as const;

/**
 * Seeds the store (call inside a write): whatever it held is replaced, its organization ids, keys and
 * brand ids kept (sandbox reset keeps them working).
 */
export function seedStore(kind: SeedKind, nowMs: number, store: SandboxStore): SandboxStore {
  const reuse: Reuse = {
    orgIds: store.orgs.keys(),
    keys: store.keys.keys(),
    brandIds: new Map(
      store.orgs
        .values()
        .flatMap((o) => o.brands.values().map((b) => [`${o.org.name}/${b.name}`, b.id] as [string, string])),
    ),
  };
  store.clear();
  store.clockOffsetMs = 0;

  const main = addOrg(store, SEED.orgs.main, "America/New_York", reuse, {
    alertRecipients: ["ops@northwind.example"],
  });
  const write = addKey(store, reuse, main.org.id, "sandbox write key", true, "sk_sandbox");
  const read = addKey(store, reuse, main.org.id, "sandbox read-only key", false, "rk_sandbox");
  addKey(store, reuse, main.org.id, "revoked key", true, "sk_sandbox", true);
  store.defaultKeys = { writeKey: write.key, readOnlyKey: read.key };

  const oats = addBrand(main, SEED.brands.oats, reuse);
  const soda = addBrand(main, SEED.brands.soda, reuse);
  const snacks = addBrand(main, SEED.brands.snacks, reuse);
  const offers: OfferSeed[] = [
    {
      baseGs1: SEED.offers.oats,
      brand: oats,
      title: "Crunchy Oats 12oz: $1.50 off",
      description: "Any 12oz box.",
      state: "available",
      savingsCents: 150,
      productBarcodes: ["001234500001", "001234500002"],
      redemptionDays: [-30, 180],
      codesAvailable: 50_000,
    },
    {
      baseGs1: SEED.offers.oatsUnknownSupply,
      brand: oats,
      title: "Crunchy Oats Family Size: BOGO",
      state: "available",
      savingsCents: null,
      productBarcodes: ["000000012345"],
      redemptionDays: [-10, 90],
      codesAvailable: null,
    },
    {
      baseGs1: SEED.offers.sodaRetail,
      brand: soda,
      title: "Sparkle Soda 6-pack: $2 off at select retailers",
      state: "available",
      savingsCents: 200,
      productBarcodes: ["009876500001"],
      redemptionDays: [-5, 120],
      codesAvailable: 2_000,
      retailerChoiceRequired: true,
      allowedRetailers: [SEED.retailers.freshmart, SEED.retailers.cornerstore],
    },
    {
      baseGs1: SEED.offers.sodaZero,
      brand: soda,
      title: "Sparkle Soda Zero: 75¢ off",
      state: "available",
      savingsCents: 75,
      productBarcodes: [],
      redemptionDays: [-1, 60],
      codesAvailable: 25,
      allowedRetailers: [SEED.retailers.freshmart],
    },
    {
      baseGs1: SEED.offers.notYetStarted,
      brand: snacks,
      title: "Trail Mix: $1 off (spring)",
      state: "not_yet_started",
      savingsCents: 100,
      productBarcodes: ["005555500001"],
      redemptionDays: [30, 120],
      codesAvailable: 10_000,
    },
    {
      baseGs1: SEED.offers.expired,
      brand: snacks,
      title: "Trail Mix: $1 off (last year)",
      state: "expired",
      savingsCents: 100,
      productBarcodes: ["005555500001"],
      redemptionDays: [-400, -35],
      codesAvailable: 0,
    },
    {
      baseGs1: SEED.offers.tempUnavailable,
      brand: snacks,
      title: null,
      state: "temporarily_unavailable",
      savingsCents: 50,
      productBarcodes: ["005555500002"],
      redemptionDays: [-20, 40],
      codesAvailable: 500,
    },
    {
      baseGs1: SEED.offers.notDistributable,
      brand: oats,
      title: "Crunchy Oats Bars: 50¢ off (store-only)",
      state: "not_distributable",
      savingsCents: 50,
      productBarcodes: ["001234500009"],
      redemptionDays: null,
      campaignDays: null,
      codesAvailable: null,
    },
  ];
  for (const o of offers) main.offers.set(o.baseGs1, offer(o, nowMs));

  const other = addOrg(store, SEED.orgs.other, "Europe/Berlin", reuse);
  addKey(store, reuse, other.org.id, "globex key", true, "sk_sandbox");
  const globexBrand = addBrand(other, SEED.brands.otherOrg, reuse);
  other.offers.set(
    SEED.offers.otherOrg,
    offer(
      {
        baseGs1: SEED.offers.otherOrg,
        brand: globexBrand,
        title: "Globex Gum: 30¢ off",
        state: "available",
        savingsCents: 30,
        productBarcodes: ["004444400001"],
        redemptionDays: [-10, 100],
        codesAvailable: 1_000,
      },
      nowMs,
    ),
  );

  const gone = addOrg(store, SEED.orgs.inactive, "UTC", reuse, { active: false });
  addKey(store, reuse, gone.org.id, "defunct key", true, "sk_sandbox");

  if (kind === "demo") {
    const names = [
      "Ada Brooks",
      "Bao Nguyen",
      "Carmen Díaz",
      "Dev Patel",
      "Elif Şahin",
      "Femi Adeyemi",
      "Grace Kim",
      "Hugo Moreau",
      "Ines Silva",
      "Jonas Berg",
      "Kaito Tanaka",
      "Lena Fischer",
    ];
    names.forEach((name, i) => {
      const ts = toIso(nowMs - (names.length - i) * 3_600_000);
      const externalId = `cr-${String(i + 1).padStart(4, "0")}`;
      const first = name.split(" ")[0]!.toLowerCase();
      main.creators.set(externalId, {
        externalId,
        name,
        email: i % 4 === 3 ? null : `${first}@creators.example`,
        handle: i % 3 === 2 ? null : `@${first}${i + 1}`,
        active: i !== names.length - 1,
        createdAt: ts,
        updatedAt: ts,
      });
    });
    other.creators.set("cr-0001", {
      externalId: "cr-0001",
      name: "Globex Creator",
      email: null,
      handle: null,
      active: true,
      createdAt: toIso(nowMs),
      updatedAt: toIso(nowMs),
    });
  }
  return store;
}

/** The test keys of a seeded store (found by their organizations and names). */
export function testKeysOf(store: SandboxStore): TestKeys {
  const keys = [...store.keys.values()];
  const mainOrg = store.keys.get(store.defaultKeys.writeKey)?.orgId;
  const find = (p: (k: KeyRecord) => boolean) => keys.find(p)?.key ?? "";
  return {
    readOnlyKey: store.defaultKeys.readOnlyKey,
    revokedKey: find((k) => k.revoked),
    otherOrgKey: find(
      (k) => k.orgId !== mainOrg && !k.revoked && store.orgs.get(k.orgId)?.org.active === true,
    ),
    deactivatedOrgKey: find((k) => store.orgs.get(k.orgId)?.org.active === false),
  };
}
