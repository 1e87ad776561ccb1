import type { Command } from "commander";

export function registerCampaigns(_program: Command): void {}
