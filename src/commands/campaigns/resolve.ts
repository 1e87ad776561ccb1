// CAMPAIGN arguments: a campaign id (uuid) or the caller's externalReference, everywhere. And the
// filter flags built on the same rules: --campaign ID_OR_REF and --brand ID_OR_NAME.
import type { ApiClient } from "../../api/client.js";
import { findCampaignByReference, getCampaign, isNotFound, listCampaigns } from "../../api/campaigns.js";
import { allOffers } from "../../api/offers.js";
import { allItems } from "../../api/paging.js";
import { ApiError, NotFoundError, UsageError } from "../../errors.js";
import type { Campaign } from "../../spec/campaigns.js";

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function isUuid(s: string): boolean {
  return UUID_RE.test(s);
}

/** resolveCampaign's own "no campaign has this id or reference" (a 404, exit 5). */
class NoSuchCampaign extends ApiError {}

/**
 * The campaign named by `idOrRef`: a uuid-shaped value is tried as an id first (and, when no
 * campaign has that id, as a reference: a reference may look like a uuid); anything else is looked
 * up by externalReference. Not found → a 404 ApiError (exit 5) that names what was tried.
 */
export async function resolveCampaign(api: ApiClient, idOrRef: string): Promise<Campaign> {
  const value = idOrRef.trim();
  if (isUuid(value)) {
    try {
      return await getCampaign(api, value);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  const found = value ? await findCampaignByReference(api, value) : null;
  if (found) return found;
  throw new NoSuchCampaign({
    status: 404,
    code: "not_found",
    message: `No campaign has the ${isUuid(value) ? "id or external reference" : "external reference"} "${value}".`,
    method: "GET",
    path: isUuid(value) ? `/campaigns/${value}` : "/campaigns?externalReference=…",
    hint: 'Run "partner-cli campaigns list" to see the campaigns and their references.',
  });
}

/**
 * A `--campaign ID_OR_REF` filter (redemptions list, reports creators, sandbox simulate ...): the
 * campaign id to send, resolved as CAMPAIGN arguments are. Undefined stays undefined. A value that
 * names no campaign is a NotFoundError (exit 5) naming the flag and the value, so a filter that
 * matches nothing never looks like an empty result.
 */
export async function resolveCampaignFilter(
  api: ApiClient,
  value: string | undefined,
  flag = "--campaign",
): Promise<string | undefined> {
  if (value === undefined) return undefined;
  if (value.trim() === "")
    throw new UsageError(`${flag} is empty; give a campaign id or external reference.`);
  try {
    return (await resolveCampaign(api, value)).id;
  } catch (err) {
    // Only the resolver's own answer: a 404 for the route itself (not the Partner API) stays as is.
    if (!(err instanceof NoSuchCampaign)) throw err;
    throw new NotFoundError(
      `${flag} "${value.trim()}" matches no campaign: no campaign has this ${isUuid(value.trim()) ? "id or external reference" : "external reference"}. Nothing was read or written.`,
      'Run "partner-cli campaigns list --all" to see the campaigns, their ids and references.',
    );
  }
}

export interface BrandRef {
  id: string;
  name: string;
}

/** The brands of the organization's offers (every page), then of its campaigns when asked. */
async function brandsOf(api: ApiClient, source: "offers" | "campaigns"): Promise<Map<string, string>> {
  const brands = new Map<string, string>();
  if (source === "offers") {
    for await (const o of allOffers(api, { pageSize: 200 })) brands.set(o.brand.id, o.brand.name);
  } else {
    for await (const c of allItems((page) => listCampaigns(api, { page, pageSize: 200 })))
      brands.set(c.offer.brand.id, c.offer.brand.name);
  }
  return brands;
}

function match(brands: Map<string, string>, value: string): BrandRef[] {
  const byId = [...brands].find(([id]) => id.toLowerCase() === value.toLowerCase());
  if (byId) return [{ id: byId[0], name: byId[1] }];
  const wanted = value.toLowerCase();
  return [...brands]
    .filter(([, name]) => name.trim().toLowerCase() === wanted)
    .map(([id, name]) => ({ id, name }));
}

/**
 * A `--brand ID_OR_NAME` filter: a brand id, or a brand's exact name (case-insensitive), among the
 * brands of the organization's offers (GET /offers, every page) and, when none matches there, of
 * its campaigns (a campaign may outlive its brand's offers). Two brands with that name are a
 * UsageError (exit 2) listing their ids; nothing found is a NotFoundError (exit 5) naming the value.
 */
export async function resolveBrandFilter(
  api: ApiClient,
  value: string | undefined,
  flag = "--brand",
): Promise<BrandRef | undefined> {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (v === "") throw new UsageError(`${flag} is empty; give a brand id or the brand's exact name.`);
  let found = match(await brandsOf(api, "offers"), v);
  if (found.length === 0) found = match(await brandsOf(api, "campaigns"), v);
  if (found.length === 1) return found[0];
  if (found.length > 1)
    throw new UsageError(
      `${flag} "${v}" is ambiguous: ${found.length} brands have this name (${found.map((b) => b.id).join(", ")}). Nothing was read or written.`,
      `Give the brand id instead: ${flag} ${found[0]!.id}`,
    );
  throw new NotFoundError(
    `${flag} "${v}" matches no brand: no brand of the organization's offers or campaigns has this ${isUuid(v) ? "id" : "name"}. Nothing was read or written.`,
    'Run "partner-cli offers list --all" to see the brands (the name must match exactly, case aside).',
  );
}
