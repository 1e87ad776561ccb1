// No function in src/ runs over 80 lines, from its first line to its last (the TypeScript compiler's
// syntax tree, through TypeScript 7's API). Biome's noExcessiveLinesPerFunction (npm run lint) counts
// only some of a function's lines and let 81-91-line functions through; this counts them all.
// Exempt: declarations and seed data, each named below with its reason.
import { API } from "typescript/unstable/sync";
import {
  isArrowFunction,
  isFunctionDeclaration,
  isFunctionExpression,
  isMethodDeclaration,
  type Node,
  type SourceFile,
} from "typescript/unstable/ast";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MAX_LINES = 80;

/** Functions allowed to be longer: lists of declarations and data, not steps. */
const EXEMPT: Record<string, string> = {
  "src/cli/campaigns.ts declareCampaignsVerbs":
    "the declarations of campaigns' verbs (options, help, examples)",
  "src/cli/links.ts declareLinksVerbs": "the declarations of links' verbs",
  "src/cli/roster.ts declareRosterVerbs": "the declarations of roster's verbs",
  "src/cli/webhooks.ts declareWebhooksVerbs": "the declarations of webhooks' verbs",
  "src/cli/sandbox.ts declareSandboxVerbs": "the declarations of sandbox's verbs",
  "src/cli/sandbox.ts registerControls": "the declarations of sandbox's control verbs",
  "src/sandbox/seed.ts seedStore": "the seed data: the demo organizations, offers and roster",
};

const api = new API({ cwd: ROOT });
afterAll(() => api.close());

function nameOf(node: Node): string {
  const named = node as unknown as { name?: { text?: string } };
  if (named.name?.text) return named.name.text;
  const parent = node.parent as unknown as { name?: { text?: string } } | undefined;
  return parent?.name?.text ?? "(anonymous)";
}

/** "file name: N lines" for each function of `sf` longer than MAX_LINES. */
function longFunctions(sf: SourceFile, file: string): string[] {
  const found: string[] = [];
  const visit = (node: Node): void => {
    const fn =
      isFunctionDeclaration(node) ||
      isFunctionExpression(node) ||
      isArrowFunction(node) ||
      isMethodDeclaration(node);
    if (fn && (node as unknown as { body?: Node }).body) {
      const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(node.end).line;
      const lines = last - first + 1;
      if (lines > MAX_LINES) found.push(`${file} ${nameOf(node)}: ${lines} lines`);
    }
    node.forEachChild(visit);
  };
  visit(sf);
  return found;
}

describe("function length", () => {
  const project = () => api.updateSnapshot({ openProjects: ["tsconfig.json"] }).getProjects()[0]!;

  it("every function in src/ is at most 80 lines, but the declarations and seed data named", {
    timeout: 120_000,
  }, () => {
    const program = project().program;
    const files = program.getSourceFileNames().filter((f) => f.startsWith(`${ROOT}src/`));
    expect(files.length).toBeGreaterThan(200);
    const found = files.flatMap((f) => longFunctions(program.getSourceFile(f)!, relative(ROOT, f)));
    const key = (entry: string) => entry.replace(/: \d+ lines$/, "");
    expect(found.filter((e) => !(key(e) in EXEMPT))).toEqual([]);
    // Every exemption still names a long function (a gone one would hide a new one).
    expect(Object.keys(EXEMPT).filter((k) => !found.some((e) => key(e) === k))).toEqual([]);
  });
});
