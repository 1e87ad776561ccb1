// Share links of creators on campaigns (the campaigns area of store.ts): creation with a short code
// unique across the sandbox and a secret stats token, the API view, and lookups by short code, stats
// token and (campaign, externalId).
import { randomBytes, randomInt } from "node:crypto";
import type { ShareLink } from "../../spec/links.js";
import { normalizeShortCode } from "../../spec/links.js";
import type { Sandbox } from "../sandbox.js";
import { peek } from "../segments.js";
import { type CampaignRecord, campaignsArea, type LinkRecord, type OrgState } from "../store.js";
import { findCampaign } from "./campaigns.js";

/** Fictional public hosts of share and stats pages (handlers do not know the sandbox's own URL). */
export const SHARE_HOST = "https://go.sandbox.partner.example";
export const STATS_HOST = "https://stats.sandbox.partner.example";

export function linksOf(state: OrgState, campaignId: string): Map<string, LinkRecord> {
  return campaignsArea(state).links.get(campaignId) ?? new Map();
}

// Letters and digits without the look-alikes 0/O, 1/I/L.
const CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

function codeTaken(sb: Sandbox, code: string): boolean {
  for (const org of sb.store.orgs.values()) {
    const a = org.areas.campaigns;
    if (a?.shortCodes.has(code)) return true;
  }
  return false;
}

function newShortCode(sb: Sandbox): string {
  for (;;) {
    let s = "";
    for (let i = 0; i < 8; i++) s += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
    const code = `${s.slice(0, 4)}-${s.slice(4)}`;
    if (!codeTaken(sb, code)) return code;
  }
}

/** Creates the link of one creator on one campaign (callers check the refusal rules first). */
export function createLink(sb: Sandbox, state: OrgState, campaignId: string, externalId: string): LinkRecord {
  const a = campaignsArea(state);
  let links = a.links.get(campaignId);
  if (!links) {
    links = new Map();
    a.links.set(campaignId, links);
  }
  const link: LinkRecord = {
    externalId,
    campaignId,
    shortCode: newShortCode(sb),
    statsToken: randomBytes(18).toString("base64url"),
    active: true,
    assignedAt: sb.clock.iso(),
    deactivatedAt: null,
  };
  links.set(externalId, link);
  a.shortCodes.set(link.shortCode, { campaignId, externalId });
  a.statsTokens.set(link.statsToken, { campaignId, externalId });
  return link;
}

export function linkView(state: OrgState, campaignId: string, link: LinkRecord): ShareLink {
  // Read only (a list of 50 links does not load 50 shards of the roster).
  const creator = peek(state.creators, link.externalId);
  return {
    creator: { externalId: link.externalId, name: creator?.name ?? link.externalId },
    campaignId,
    shareUrl: `${SHARE_HOST}/${link.shortCode}`,
    shortCode: link.shortCode,
    statsUrl: `${STATS_HOST}/${link.statsToken}`,
    active: link.active,
    activeOnRoster: creator?.active === true,
    assignedAt: link.assignedAt,
    deactivatedAt: link.deactivatedAt,
  };
}

function resolve(state: OrgState, ref: { campaignId: string; externalId: string } | undefined) {
  if (!ref) return undefined;
  const campaign = findCampaign(state, ref.campaignId);
  const link = linksOf(state, ref.campaignId).get(ref.externalId);
  return campaign && link ? { campaign, link } : undefined;
}

export function findLinkByShortCode(
  state: OrgState,
  code: string,
): { campaign: CampaignRecord; link: LinkRecord } | undefined {
  const norm = normalizeShortCode(code);
  return norm ? resolve(state, campaignsArea(state).shortCodes.get(norm)) : undefined;
}

export function findLinkByStatsToken(
  state: OrgState,
  token: string,
): { campaign: CampaignRecord; link: LinkRecord } | undefined {
  return resolve(state, campaignsArea(state).statsTokens.get(token));
}
