import type { Command } from "commander";

export function registerProfiles(_program: Command): void {}
