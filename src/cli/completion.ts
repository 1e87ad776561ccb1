import type { Command } from "commander";

export function registerCompletion(_program: Command): void {}
