import { listCampaigns } from "../../api/campaigns.js";
import type { Context } from "../../context.js";
import type { Column } from "../../io/render.js";
import { stateStyle } from "../../io/table.js";
import type { Campaign } from "../../spec/campaigns.js";
import { pagingOf, printPaged } from "../shared/list.js";
import { resolveBrandFilter } from "./resolve.js";
import { isViewOnly, statusText, viewOnlyNote } from "./view-only.js";

export interface CampaignsListOptions {
  status?: string | undefined;
  brand?: string | undefined;
  externalReference?: string | undefined;
  all?: boolean | undefined;
  limit?: number | undefined;
}

const CAMPAIGN_COLUMNS: Column<Campaign>[] = [
  { header: "id", value: (c) => c.id, drop: 1 },
  { header: "externalReference", value: (c) => c.externalReference, truncate: true },
  { header: "name", value: (c) => c.name, truncate: true },
  { header: "status", value: statusText, color: (t) => stateStyle(t.split(" ")[0]!) },
  { header: "brand", value: (c) => c.offer.brand.name, drop: 3, truncate: true },
  { header: "offer", value: (c) => c.offer.baseGs1, drop: 2, field: "offer.baseGs1" },
  { header: "from", value: (c) => c.dates.from, drop: 5, field: "dates.from" },
  { header: "through", value: (c) => c.dates.through, field: "dates.through" },
  { header: "codeLimit", value: (c) => c.codes.limit, drop: 4, field: "codes.limit" },
  { header: "issued", value: (c) => c.codes.issued, field: "codes.issued" },
  { header: "redeemed", value: (c) => c.codes.redeemed, field: "codes.redeemed" },
];

export async function campaignsListRun(o: CampaignsListOptions, ctx: Context): Promise<void> {
  pagingOf(o); // bad paging flags are refused before any request
  const api = await ctx.api();
  const brandId = (await resolveBrandFilter(api, o.brand))?.id;
  const query = { status: o.status, brandId, externalReference: o.externalReference };
  const viewOnly = new Set<string>();
  await printPaged(ctx.io, o, {
    fetchPage: async (page, pageSize) => {
      const got = await listCampaigns(api, { ...query, page, pageSize });
      for (const c of got.items) if (isViewOnly(c)) viewOnly.add(c.id);
      return got;
    },
    columns: CAMPAIGN_COLUMNS,
    noun: "campaigns",
    emptyNote: "No campaigns match.",
    noPageFlag: true,
  });
  if (viewOnly.size > 0) ctx.io.err(viewOnlyNote(viewOnly.size));
}
