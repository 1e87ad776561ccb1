import type { Command } from "commander";

export function registerLinks(_program: Command): void {}
