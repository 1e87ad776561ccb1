import type { Command } from "commander";

export function registerRoster(_program: Command): void {}
