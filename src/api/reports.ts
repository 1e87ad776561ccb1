import { type CampaignReport, type CreatorCounts, looseReports, type Summary } from "../spec/reports.js";
import type { ApiClient } from "./client.js";
import { seg } from "./client.js";

export interface RangeQuery {
  preset?: string | undefined;
  from?: string | undefined;
  through?: string | undefined;
}

export function summaryReport(
  c: ApiClient,
  q: RangeQuery & { brandId?: string | undefined },
): Promise<Summary> {
  return c.call({
    method: "GET",
    path: "/reports/summary",
    query: { ...q },
    retry: "read",
    schema: looseReports.Summary as never,
  });
}

export function campaignReport(
  c: ApiClient,
  campaignId: string,
  q: RangeQuery & { page?: number | undefined; pageSize?: number | undefined },
): Promise<CampaignReport> {
  return c.call({
    method: "GET",
    path: `/campaigns/${seg(campaignId)}/report`,
    query: { ...q },
    retry: "read",
    schema: looseReports.CampaignReport as never,
  });
}

export function creatorCounts(
  c: ApiClient,
  q: RangeQuery & {
    brandId?: string | undefined;
    campaignId?: string | undefined;
    page?: number | undefined;
    pageSize?: number | undefined;
  },
): Promise<CreatorCounts> {
  return c.call({
    method: "GET",
    path: "/reports/creator-counts",
    query: { ...q },
    retry: "read",
    schema: looseReports.CreatorCounts as never,
  });
}
