import type { Command } from "commander";

export function registerCursors(_program: Command): void {}
