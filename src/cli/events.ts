import type { Command } from "commander";

export function registerEvents(_program: Command): void {}
