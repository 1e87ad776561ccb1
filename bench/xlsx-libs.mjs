// npm run bench, the xlsx libraries (issue 23): which xlsx library partner-cli carries. Each candidate is
// installed with `npm install --prefix DIR --omit=dev` into its own temporary directory (packages and
// bytes of its node_modules counted), then, each in its own process (wall ms, peak RSS, CPU s):
//
// - write: BENCH_XLSX_LIBS_ROWS rows (1,000,000) of 6 columns (text id, name, e-mail, date, number,
//   boolean) to a file, through the library's streaming writer when it has one (rows handed over in
//   pages of 1,000, waiting for the zip when the library exposes its input), otherwise by building the
//   sheet in memory and writing it whole;
// - read: the same rows back from one reference file (the one exceljs wrote), through the library's
//   streaming reader when it has one, counting rows and checking the last one.
//
// Candidates: exceljs 4.4 (external: installed with the package), exceljs 4.4 bundled into a lazily
// loaded chunk by esbuild as scripts/build.mjs does (its size is that of the bundle: the dist/ chunks
// holding exceljs when a build is there, else this bundle), @zurmokeeper/exceljs (a maintained fork),
// @cj-tech-master/excelts 5.1 (a dependency-free TypeScript port of exceljs; its 6.x and newer need
// Node 22), SheetJS (xlsx 0.18.5, the last on npm; no streaming reader or writer) and
// read-excel-file + write-excel-file (whole sheets in memory).
//
// Run alone: `node bench/xlsx-libs.mjs` (after `npm run build`, for the bundled size), or as part of
// `BENCH_ONLY=xlsx npm run bench`. Knobs: BENCH_XLSX_LIBS_ROWS (1000000; 0 skips), BENCH_XLSX_LIBS
// (a comma list of candidate ids, default all).
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { execFileSync } from "node:child_process";
import { dirStat, log as defaultLog, measured as defaultMeasured, round, table } from "./lib.mjs";

const ROWS = Number(process.env.BENCH_XLSX_LIBS_ROWS ?? 1_000_000);

/** The rows every writer writes: a function of the index, so the reader can check the last one. */
const ROW = `const row = (i) => [
  "cr-" + String(i).padStart(7, "0"), "Creator " + i + " Müller", "creator" + i + "@example.com",
  new Date(Date.UTC(2024, 0, 1) + (i % 1000) * 86400000), i * 3, i % 2 === 0,
];
const HEADER = ["externalId", "name", "email", "joined", "count", "active"];
const [mode, file, n] = [process.argv[2], process.argv[3], Number(process.argv[4])];
const t0 = Date.now();
const done = (rows, last) => process.stdout.write(JSON.stringify({ rows, last: String(last), ms: Date.now() - t0 }) + "\\n");
`;

/** exceljs and its forks and ports: streaming WorkbookWriter and WorkbookReader. */
const exceljsDriver = (importLine, writerOf, readerOf) => `${importLine}
import { once } from "node:events";
${ROW}
if (mode === "write") {
  const wb = new (${writerOf})({ filename: file, useStyles: true, useSharedStrings: false });
  const ws = wb.addWorksheet("Rows");
  ws.addRow(HEADER).commit();
  for (let i = 1; i <= n; i++) {
    ws.addRow(row(i)).commit();
    if (i % 1000 === 0) {
      // exceljs applies no backpressure: wait while the zip's input holds more than 1 MB.
      const input = ws.stream?.pipes?.[0];
      if (input?._writableState) while (input._writableState.length > 1 << 20) await once(input, "drain");
      else await new Promise((r) => setImmediate(r));
    }
  }
  ws.commit();
  await wb.commit();
  done(n, "");
} else {
  const reader = new (${readerOf})(file, { sharedStrings: "cache", styles: "cache", worksheets: "emit", hyperlinks: "ignore" });
  let rows = -1;
  let last;
  for await (const ws of reader) for await (const r of ws) { rows++; last = r.values[1]; }
  done(rows, last);
}
`;

const sheetjsDriver = `import XLSX from "xlsx";
${ROW}
if (mode === "write") {
  const aoa = [HEADER];
  for (let i = 1; i <= n; i++) aoa.push(row(i));
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(aoa, { dense: true }), "Rows");
  XLSX.writeFile(wb, file, { compression: true });
  done(n, "");
} else {
  const wb = XLSX.readFile(file, { dense: true, cellDates: true });
  const rows = XLSX.utils.sheet_to_json(wb.Sheets[wb.SheetNames[0]], { header: 1 });
  done(rows.length - 1, rows.at(-1)[0]);
}
`;

const catamphetamineDriver = `import writeXlsxFile from "write-excel-file/node";
import { readSheet } from "read-excel-file/node";
${ROW}
if (mode === "write") {
  const data = [HEADER.map((value) => ({ value }))];
  for (let i = 1; i <= n; i++) {
    const r = row(i);
    data.push(r.map((value, j) => (j === 3 ? { value, format: "yyyy-mm-dd" } : { value })));
  }
  await writeXlsxFile(data).toFile(file);
  done(n, "");
} else {
  const rows = await readSheet(file);
  done(rows.length - 1, rows.at(-1)[0]);
}
`;

const EXCELJS = exceljsDriver(
  'import ExcelJS from "exceljs";',
  "ExcelJS.stream.xlsx.WorkbookWriter",
  "ExcelJS.stream.xlsx.WorkbookReader",
);

export const CANDIDATES = [
  { id: "exceljs", label: "exceljs 4.4.0, external", install: ["exceljs@4.4.0"], driver: EXCELJS },
  {
    id: "exceljs-bundled",
    label: "exceljs 4.4.0, bundled (esbuild chunk)",
    install: ["exceljs@4.4.0"],
    driver: EXCELJS,
    bundled: true,
  },
  {
    id: "zurmokeeper",
    label: "@zurmokeeper/exceljs 4.4.9",
    install: ["@zurmokeeper/exceljs@4.4.9"],
    driver: exceljsDriver(
      'import ExcelJS from "@zurmokeeper/exceljs";',
      "ExcelJS.stream.xlsx.WorkbookWriter",
      "ExcelJS.stream.xlsx.WorkbookReader",
    ),
  },
  {
    id: "excelts",
    label: "@cj-tech-master/excelts 5.1.17",
    install: ["@cj-tech-master/excelts@5.1.17"],
    driver: exceljsDriver(
      'import { WorkbookWriter, WorkbookReader } from "@cj-tech-master/excelts";',
      "WorkbookWriter",
      "WorkbookReader",
    ),
  },
  {
    id: "sheetjs",
    label: "xlsx (SheetJS) 0.18.5, in memory",
    install: ["xlsx@0.18.5"],
    driver: sheetjsDriver,
  },
  {
    id: "read-write-excel-file",
    label: "read-excel-file 9.3 + write-excel-file 4.1, in memory",
    install: ["read-excel-file@9.3.17", "write-excel-file@4.1.1"],
    driver: catamphetamineDriver,
  },
];

/** Installed packages (directories with a package.json, scoped and nested ones too) and their bytes. */
function installedSize(nodeModules) {
  let packages = 0;
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      if (name.startsWith(".")) continue;
      const names = name.startsWith("@") ? readdirSync(join(dir, name)).map((n) => `${name}/${n}`) : [name];
      for (const pkg of names) {
        if (!existsSync(join(dir, pkg, "package.json"))) continue;
        packages++;
        walk(join(dir, pkg, "node_modules"));
      }
    }
  };
  walk(nodeModules);
  return { packages, mb: round(dirStat(nodeModules).bytes / 2 ** 20) };
}

/** The bytes of exceljs as partner-cli ships it: the dist/ chunks holding it (.js only), when built. */
function distExceljsMb(root) {
  const chunks = join(root, "dist", "chunks");
  if (!existsSync(chunks)) return null;
  const files = readdirSync(chunks).filter((f) => /^(excel|parse-sax)-[A-Za-z0-9]+\.js$/.test(f));
  if (!files.some((f) => f.startsWith("excel-"))) return null;
  return round(files.reduce((n, f) => n + statSync(join(chunks, f)).size, 0) / 2 ** 20, 2);
}

async function bundle(root, entry, outfile) {
  const { build } = await import(pathToFileURL(join(root, "node_modules", "esbuild", "lib", "main.js")).href);
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "error",
    banner: {
      js: 'import { createRequire as __cr } from "node:module"; const require = __cr(import.meta.url);',
    },
  });
  return round(statSync(outfile).size / 2 ** 20, 2);
}

/** Installs the candidate and writes its driver; returns the script to run and its install size. */
async function prepare(root, dir, c) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `xlsx-bench-${c.id}`, private: true }));
  execFileSync("npm", ["install", "--prefix", dir, "--no-audit", "--no-fund", "--omit=dev", ...c.install], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  const script = join(dir, "driver.mjs");
  writeFileSync(script, c.driver);
  if (!c.bundled) return { script, size: installedSize(join(dir, "node_modules")) };
  const bundled = join(dir, "driver.bundle.mjs");
  const bundleMb = await bundle(root, script, bundled);
  const shipped = distExceljsMb(root);
  return {
    script: bundled,
    size: { packages: 0, mb: shipped ?? bundleMb, note: shipped ? "dist/ chunks" : "esbuild bundle" },
  };
}

async function runOne(measured, script, args) {
  const r = await measured([script, ...args], { ...process.env });
  if (r.code !== 0) {
    const lines = r.stderr.trim().split("\n");
    const why = lines.find((l) => /Error|heap|memory/i.test(l)) ?? lines.at(-1);
    return { error: `exit ${r.code}: ${why.trim().slice(0, 200)}` };
  }
  const out = JSON.parse(r.stdout);
  return { ms: round(r.ms), peakRssMb: r.peakRssMb, cpuSec: r.cpuSec, rows: out.rows, last: out.last };
}

/** Measures the candidates; the reference file for every read is the one the first candidate wrote. */
export async function xlsxLibsBench({
  root,
  tmp,
  log = defaultLog,
  measured = defaultMeasured,
  rows = ROWS,
}) {
  if (rows <= 0) throw new Error("BENCH_XLSX_LIBS_ROWS=0");
  const only = (process.env.BENCH_XLSX_LIBS ?? "").split(",").filter(Boolean);
  const chosen = CANDIDATES.filter((c) => only.length === 0 || only.includes(c.id));
  const base = join(tmp, "xlsx-libs");
  const reference = join(base, "reference.xlsx");
  const results = [];
  for (const c of chosen) {
    log(`  xlsx libraries: ${c.label}: install`);
    const { script, size } = await prepare(root, join(base, c.id), c);
    const out = join(base, `${c.id}.xlsx`);
    log(`  xlsx libraries: ${c.label}: write ${rows.toLocaleString("en-US")} rows`);
    const write = await runOne(measured, script, ["write", out, String(rows)]);
    if (!write.error) write.fileMb = round(statSync(out).size / 2 ** 20);
    if (!existsSync(reference) && !write.error) execFileSync("cp", [out, reference]);
    let read = { error: "no reference file" };
    if (existsSync(reference)) {
      log(`  xlsx libraries: ${c.label}: read`);
      read = await runOne(measured, script, ["read", reference, String(rows)]);
      const lastId = `cr-${String(rows).padStart(7, "0")}`;
      if (!read.error && (read.rows !== rows || read.last !== lastId))
        read = { ...read, error: `read ${read.rows} rows ending ${read.last}, not ${rows} ending ${lastId}` };
    }
    rmSync(out, { force: true });
    results.push({ id: c.id, label: c.label, install: size, write, read });
  }
  return { rows, columns: 6, results };
}

const cell = (x, key) => (x.error ? "failed" : x[key]);

/** The table of the results, and one line per failure. */
export function xlsxLibsLines(x) {
  const rows = x.results.map((r) => [
    r.label,
    r.install.packages,
    r.install.mb,
    cell(r.write, "ms"),
    cell(r.write, "peakRssMb"),
    cell(r.read, "ms"),
    cell(r.read, "peakRssMb"),
  ]);
  const lines = [
    `xlsx libraries: ${x.rows.toLocaleString("en-US")} rows of ${x.columns} columns written, then read back`,
    table(rows, ["library", "packages", "MB", "write ms", "write RSS MB", "read ms", "read RSS MB"]),
  ];
  for (const r of x.results)
    for (const [what, m] of [
      ["write", r.write],
      ["read", r.read],
    ])
      if (m.error) lines.push(`  ${r.label}: ${what} failed: ${m.error}`);
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const tmp = join(tmpdir(), `partner-cli-xlsx-libs-${process.pid}`);
  try {
    const x = await xlsxLibsBench({ root, tmp });
    process.stdout.write(`${xlsxLibsLines(x).join("\n")}\n${JSON.stringify(x)}\n`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
