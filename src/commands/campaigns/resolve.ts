// CAMPAIGN arguments: a campaign id (uuid) or the caller's externalReference, everywhere.
import type { ApiClient } from "../../api/client.js";
import { findCampaignByReference, getCampaign, isNotFound } from "../../api/campaigns.js";
import { ApiError } from "../../errors.js";
import type { Campaign } from "../../spec/campaigns.js";

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(s: string): boolean {
  return UUID_RE.test(s);
}

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
  throw new ApiError({
    status: 404,
    code: "not_found",
    message: `No campaign has the ${isUuid(value) ? "id or external reference" : "external reference"} "${value}".`,
    method: "GET",
    path: isUuid(value) ? `/campaigns/${value}` : "/campaigns?externalReference=…",
    hint: 'Run "partner-cli campaigns list" to see the campaigns and their references.',
  });
}
