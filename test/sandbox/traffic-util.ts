// Shared arrangement for the traffic, redemptions and reports conformance tests: campaigns and links
// through the API, traffic through the /_sandbox control routes.
import { expect } from "vitest";
import { Temporal } from "temporal-polyfill";
import { strictCampaigns } from "../../src/spec/campaigns.js";
import { http, type RunningSandbox } from "../helpers/sandbox.js";
import { SEED } from "../../src/sandbox/seed.js";

export const NY = "America/New_York";

/** The calendar day of the sandbox clock in `tz`, plus `offset` days. */
export function dayIn(sb: RunningSandbox, tz: string, offset = 0): string {
  return Temporal.Instant.fromEpochMilliseconds(sb.sandbox.clock.nowMs())
    .toZonedDateTimeISO(tz)
    .toPlainDate()
    .add({ days: offset })
    .toString();
}

export interface CampaignInit {
  name?: string;
  baseGs1?: string;
  from?: string;
  through?: string;
  codeLimit?: number;
  rate?: number | string;
  price?: number | string;
  externalReference?: string;
  retailer?: { emailDomain: string; name: string };
  creators?: string[];
  activate?: boolean;
  key?: string;
}

/** Creates a campaign (active unless activate:false) with links for the given creators. */
export async function makeCampaign(sb: RunningSandbox, o: CampaignInit = {}) {
  const body = {
    name: o.name ?? "Traffic test",
    baseGs1: o.baseGs1 ?? SEED.offers.oatsUnknownSupply,
    dates: { from: o.from ?? dayIn(sb, NY, -2), through: o.through ?? dayIn(sb, NY, 30) },
    codeLimit: o.codeLimit ?? 100_000,
    commission: { rate: o.rate ?? 0.1, estimatedUnitSalePrice: o.price ?? 2.5 },
    ...(o.externalReference ? { externalReference: o.externalReference } : {}),
    ...(o.retailer ? { retailer: o.retailer } : {}),
  };
  const key = o.key ?? sb.writeKey;
  const res = await http(sb, "POST", "/campaigns", { body, key });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const id: string = res.body.id;
  if (o.activate !== false) {
    const st = await http(sb, "POST", `/campaigns/${id}/status`, { body: { status: "active" }, key });
    expect(st.status, JSON.stringify(st.body)).toBe(200);
  }
  for (const c of o.creators ?? ["cr-0001", "cr-0002", "cr-0003"]) {
    const l = await http(sb, "POST", `/campaigns/${id}/creators/${encodeURIComponent(c)}`, { key });
    expect([200, 201]).toContain(l.status);
  }
  return { id, externalReference: o.externalReference ?? null };
}

export async function getCampaign(sb: RunningSandbox, id: string) {
  const res = await http(sb, "GET", `/campaigns/${id}`);
  expect(res.status).toBe(200);
  return strictCampaigns.Campaign.parse(res.body);
}

/** POST /_sandbox/simulate; expects 200 unless `status` says otherwise. */
export async function simulate(
  sb: RunningSandbox,
  body: Record<string, unknown>,
  status = 200,
  key?: string,
) {
  const res = await http(sb, "POST", "/simulate", { control: true, body, ...(key ? { key } : {}) });
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body;
}

/** Every event of the log (oldest first), optionally of one type. */
export async function events(sb: RunningSandbox, type?: string): Promise<any[]> {
  const out: any[] = [];
  let after: string | null = null;
  for (;;) {
    const q = new URLSearchParams({ limit: "1000" });
    if (type) q.set("type", type);
    if (after) q.set("after", after);
    const res = await http(sb, "GET", `/events?${q}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    out.push(...res.body.items);
    if (!res.body.nextCursor) return out;
    after = res.body.nextCursor;
  }
}

/** Sets the organization's reporting time zone (control route). */
export async function setTimeZone(sb: RunningSandbox, tz: string) {
  const res = await http(sb, "POST", "/organization", { control: true, body: { reportingTimeZone: tz } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** Moves the sandbox clock forward to an instant. */
export async function advanceTo(sb: RunningSandbox, isoOrMs: string | number) {
  const target = typeof isoOrMs === "number" ? isoOrMs : Date.parse(isoOrMs);
  const delta = Math.max(0, Math.ceil(target - sb.sandbox.clock.nowMs()));
  const res = await http(sb, "POST", "/advance", { control: true, body: { duration: delta } });
  expect(res.status).toBe(200);
}

/** Every redemption through the feed, oldest first. */
export async function feedAll(sb: RunningSandbox, limit = 1000): Promise<any[]> {
  const out: any[] = [];
  let after: string | null = null;
  for (;;) {
    const q = new URLSearchParams({ limit: String(limit) });
    if (after) q.set("after", after);
    const res = await http(sb, "GET", `/redemptions?${q}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    out.push(...res.body.items);
    if (!res.body.nextCursor) return out;
    after = res.body.nextCursor;
  }
}

/** The UTC timestamp of a wall-clock time on a day in `tz` (e.g. "12:00:00"). */
export function instantIn(tz: string, day: string, time: string): string {
  const z = Temporal.PlainDateTime.from(`${day}T${time}`).toZonedDateTime(tz);
  return `${z.toInstant().toString({ smallestUnit: "second" })}`;
}
