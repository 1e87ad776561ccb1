import type { Command } from "commander";

export function registerRedemptions(_program: Command): void {}
