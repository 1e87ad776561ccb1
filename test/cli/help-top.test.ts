// bin/partner-cli.js answers `--help`, `-h` and `help` (alone) from dist/help-top.js, without the
// program: the top-level page the build read from the built program, laid out by the program's own
// help layout (src/cli/help-layout.ts). Its bytes must be the program's for every width, on a
// terminal or not, whatever the colour settings; and the page it holds must be the tree's.
import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { renderHelp } from "../../src/cli/help-layout.js";
import { buildProgram, topHelpPage } from "../../src/program.js";
import { BIN } from "../helpers/cli.js";
import { runIn } from "../helpers/run.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MAIN = join(ROOT, "dist", "main.js");
const HELP_TOP = join(ROOT, "dist", "help-top.js");

/** The program's --help at a width (COLUMNS), from the whole tree or the lazy one. */
function programHelp(width: number, lazy: boolean): string {
  const sink = new PassThrough();
  const program = buildProgram(
    {
      makeContext: () => {
        throw new Error("no command runs here");
      },
      streams: { stdout: sink, stderr: sink },
    },
    { env: { COLUMNS: String(width) }, ...(lazy ? { lazyFor: ["--help"] } : {}) },
  );
  return program.helpInformation();
}

describe("the top-level page as data", () => {
  const page = topHelpPage();

  it("laid out at every width from 1 to 320 (and 1000) it is the program's --help, whole tree or lazy", () => {
    const off: number[] = [];
    for (const width of [...Array.from({ length: 320 }, (_, i) => i + 1), 1000]) {
      const text = renderHelp(page, width);
      if (text !== programHelp(width, false) || text !== programHelp(width, true)) off.push(width);
    }
    expect(off).toEqual([]);
  });

  it("is what the CLI prints for --help, -h and help (in-process, the program's parse)", async () => {
    for (const argv of [["--help"], ["-h"], ["help"]]) {
      for (const columns of ["50", "80", "133"]) {
        const r = await runIn(argv, { env: { COLUMNS: columns } });
        expect(r.exitCode).toBe(0);
        expect(r.stderr).toBe("");
        expect(r.stdout, `${argv} at ${columns}`).toBe(renderHelp(page, Number(columns)));
      }
    }
  });

  it.skipIf(!existsSync(HELP_TOP))(
    "dist/help-top.js holds the page of the tree it was built from",
    async () => {
      const built = (await import(pathToFileURL(HELP_TOP).href)) as { PAGE: unknown };
      expect(built.PAGE).toEqual(JSON.parse(JSON.stringify(page)));
    },
  );
});

// The built CLI: its fast answer against the program itself (dist/main.js's run(), which bin/ runs
// for any other command line), spawned alike.
const tmp = mkdtempSync(join(tmpdir(), "partner-cli-help-top-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const FULL = join(tmp, "full-program.mjs");
writeFileSync(
  FULL,
  `const { run } = await import(${JSON.stringify(pathToFileURL(MAIN).href)});\nprocess.exitCode = await run(process.argv.slice(2));\n`,
);

const exec = promisify(execFile);

interface Spawned {
  code: number;
  stdout: string;
  stderr: string;
}

async function spawned(script: string, argv: string[], env: NodeJS.ProcessEnv): Promise<Spawned> {
  const clean = { ...process.env };
  for (const k of ["COLUMNS", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE"]) delete clean[k];
  try {
    const r = await exec(process.execPath, [script, ...argv], {
      env: { ...clean, ...env },
      encoding: "utf8",
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: err.code ?? -1, stdout: err.stdout ?? "", stderr: err.stderr ?? "" };
  }
}

describe.skipIf(!existsSync(MAIN))("the built CLI's fast answer is the program's, byte for byte", () => {
  const cases: [string[], NodeJS.ProcessEnv][] = [
    ...["1", "20", "39", "40", "41", "57", "80", "81", "100", "133", "250", "1000"].map(
      (c): [string[], NodeJS.ProcessEnv] => [["--help"], { COLUMNS: c }],
    ),
    // COLUMNS that is no width: 80 when piped, as the program.
    ...["", "0", "-5", "abc", " 90"].map((c): [string[], NodeJS.ProcessEnv] => [["--help"], { COLUMNS: c }]),
    [["--help"], {}],
    [["-h"], {}],
    [["help"], {}],
    [["-h"], { COLUMNS: "64" }],
    [["help"], { COLUMNS: "120" }],
    [["--help"], { NO_COLOR: "1" }],
    [["--help"], { FORCE_COLOR: "1" }],
    [["--help"], { FORCE_COLOR: "3", CLICOLOR_FORCE: "1", COLUMNS: "100" }],
    [["--help"], { CLICOLOR: "0" }],
  ];

  it.each(cases)("%j with %j", async (argv, env) => {
    const [fast, full] = await Promise.all([spawned(BIN, argv, env), spawned(FULL, argv, env)]);
    expect(fast.code).toBe(0);
    expect(fast.stderr).toBe("");
    expect(fast.stdout.replace(/\s/g, "")).toContain("Usage:partner-cli[options][command]");
    expect(fast).toEqual(full);
  });

  it("a closed pipe (`| true`): exit 0 and nothing on stderr, as bin/ does for the program's output", () => {
    for (const argv of [["--help"], ["-h"], ["roster", "--help"]]) {
      const r = spawnSync(
        "bash",
        ["-c", `"$0" "$@" | true; echo "status \${PIPESTATUS[0]}" >&2`, process.execPath, BIN, ...argv],
        { encoding: "utf8" },
      );
      expect(r.stderr, argv.join(" ")).toBe("status 0\n");
      expect(r.stdout).toBe("");
    }
  });

  const hasScript = spawnSync("script", ["--version"]).status === 0;
  it.runIf(hasScript).each([45, 80, 137])(
    "on a terminal %i columns wide (COLUMNS unset): the terminal's width, as the program",
    async (cols) => {
      // script(1) gives the command a pseudo-terminal; stty sets its width.
      const onTerminal = (script: string) => {
        const env = { ...process.env };
        delete env.COLUMNS;
        const line = `stty cols ${cols} rows 40; "${process.execPath}" "${script}" --help`;
        const r = spawnSync("script", ["-q", "-e", "-c", line, "/dev/null"], { env, encoding: "utf8" });
        expect(r.status, r.stderr).toBe(0);
        return r.stdout;
      };
      const fast = onTerminal(BIN);
      expect(fast).toContain("Usage: partner-cli [options] [command]");
      expect(fast).toBe(onTerminal(FULL));
      // The terminal's width is used: the page is not the 80-column one (unless it is 80 wide).
      const at80 = renderHelp(topHelpPage(), 80).replaceAll("\n", "\r\n");
      if (cols === 80) expect(fast).toBe(at80);
      else expect(fast).not.toBe(at80);
    },
  );
});
