// Share links of creators on campaigns (the campaigns area of store.ts): creation with a short code
// unique across the sandbox and a secret stats token, the API view, and lookups by short code, stats
// token and (campaign, externalId).
import { randomBytes, randomInt } from "node:crypto";
import type { ShareLink } from "../../spec/links.js";
import { normalizeShortCode } from "../../spec/links.js";
import type { Sandbox } from "../sandbox.js";
import type { Table } from "../db.js";
import type { CampaignRecord, LinkRecord, LinkRef, OrgState } from "../store.js";
import { findCampaign } from "./campaigns.js";

/** Fictional public hosts of share and stats pages (handlers do not know the sandbox's own URL). */
const SHARE_HOST = "https://go.sandbox.partner.example";
const STATS_HOST = "https://stats.sandbox.partner.example";

export function linksOf(state: OrgState, campaignId: string): Table<LinkRecord> {
  return state.linksOf(campaignId);
}

// Letters and digits without the look-alikes 0/O, 1/I/L.
const CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

const codeTaken = (sb: Sandbox, code: string) => sb.store.shortCodes.has(code);

function newShortCode(sb: Sandbox): string {
  for (;;) {
    let s = "";
    for (let i = 0; i < 8; i++) s += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
    const code = `${s.slice(0, 4)}-${s.slice(4)}`;
    if (!codeTaken(sb, code)) return code;
  }
}

/**
 * Creates the link of one creator on one campaign (callers check the refusal rules first), assigned
 * now or at `assignedAt` (an assignment job's step, stamped with the time it was due).
 */
export function createLink(
  sb: Sandbox,
  state: OrgState,
  campaignId: string,
  externalId: string,
  assignedAt = sb.clock.iso(),
): LinkRecord {
  const link: LinkRecord = {
    externalId,
    campaignId,
    shortCode: newShortCode(sb),
    statsToken: randomBytes(18).toString("base64url"),
    active: true,
    assignedAt,
    deactivatedAt: null,
  };
  linksOf(state, campaignId).set(externalId, link);
  const ref: LinkRef = { orgId: state.id, campaignId, externalId };
  sb.store.shortCodes.set(link.shortCode, ref);
  sb.store.statsTokens.set(link.statsToken, ref);
  return link;
}

export function linkView(state: OrgState, campaignId: string, link: LinkRecord): ShareLink {
  const creator = state.creators.get(link.externalId);
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

function resolve(state: OrgState, ref: LinkRef | undefined) {
  if (!ref || ref.orgId !== state.id) return undefined;
  const campaign = findCampaign(state, ref.campaignId);
  const link = linksOf(state, ref.campaignId).get(ref.externalId);
  return campaign && link ? { campaign, link } : undefined;
}

export function findLinkByShortCode(
  state: OrgState,
  code: string,
): { campaign: CampaignRecord; link: LinkRecord } | undefined {
  const norm = normalizeShortCode(code);
  return norm ? resolve(state, state.store.shortCodes.get(norm)) : undefined;
}
