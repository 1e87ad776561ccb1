import type { Command } from "commander";

export function registerReports(_program: Command): void {}
