// sandbox brand-access BRAND lost|restored: the organization loses (or gets back) access to a brand,
// as when a brand withdraws from the service. With access lost, the brand's campaigns are view-only
// (empty allowedStatuses; reads, reports and exports work; every change answers 409 conflict).
import { setSandboxBrandAccess } from "../../api/sandbox-control.js";
import type { Context } from "../../context.js";
import { printRecord } from "../../io/render.js";
import { resolveBrandFilter } from "../campaigns/resolve.js";

export interface SandboxBrandAccessOptions {
  /** A brand id, or a brand's exact name. */
  brand: string;
  access: "lost" | "restored";
}

export async function sandboxBrandAccessRun(opts: SandboxBrandAccessOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const brand = (await resolveBrandFilter(api, opts.brand, "BRAND"))!;
  const result = await setSandboxBrandAccess(api, brand.id, opts.access === "restored");
  printRecord(ctx.io, { brand: { id: brand.id, name: brand.name }, access: opts.access, result }, [
    ["brandId", brand.id],
    ["brand", brand.name],
    ["access", opts.access],
  ]);
  if (!ctx.io.json)
    ctx.io.err(
      opts.access === "lost"
        ? `The campaigns of ${brand.name} are view-only now: reads, reports and exports work; every change answers 409 conflict.`
        : `The campaigns of ${brand.name} can be changed again.`,
    );
}
