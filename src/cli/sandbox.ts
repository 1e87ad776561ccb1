import type { Command } from "commander";

export function registerSandbox(_program: Command): void {}
