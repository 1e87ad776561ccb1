// sandbox reset: wipe the target sandbox's data back to a seed (keys kept). Destructive: asks first.
import { resetSandbox } from "../../api/sandbox-control.js";
import type { Context } from "../../context.js";
import { DeclinedError } from "../../errors.js";
import { printRecord } from "../../io/render.js";

export interface SandboxResetOptions {
  seed?: "demo" | "empty" | undefined;
}

export async function sandboxResetRun(opts: SandboxResetOptions, ctx: Context): Promise<void> {
  const seed = opts.seed ?? "demo";
  const target = await ctx.target();
  const where = target.source === "embedded" ? "the embedded sandbox" : `the sandbox at ${target.baseUrl}`;
  if (!ctx.globals.yes) {
    if (!ctx.canPrompt()) {
      throw new DeclinedError(
        `sandbox reset wipes every creator, campaign and event of ${where}; not confirmed.`,
        "Pass --yes to confirm without a prompt.",
      );
    }
    const ok = await ctx.prompter().confirm({
      message: `Wipe all data of ${where} back to the ${seed} seed? (keys are kept)`,
      default: false,
    });
    if (!ok) throw new DeclinedError("Reset declined; nothing was changed.");
  }
  const result = await resetSandbox(await ctx.api(), seed);
  printRecord(ctx.io, result, [
    ["reset", result.reset],
    ["seed", result.seed],
    ["baseUrl", target.baseUrl],
  ]);
  if (!ctx.io.json) ctx.io.err(`Reset ${where} to the ${result.seed} seed.`);
}
