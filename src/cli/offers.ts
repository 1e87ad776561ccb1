import type { Command } from "commander";

export function registerOffers(_program: Command): void {}
