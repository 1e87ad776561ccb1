// campaigns report CAMPAIGN: the same report as `reports campaign` (src/commands/reports/campaign.ts).
export { reportsCampaignRun as campaignsReportRun } from "../reports/campaign.js";
