// No request that can only fail: a roster without a name column can only update creators (the
// service requires a name for a new one). Before anything is sent (and before the rejects file is
// made), an import without a name column asks the service about the first SAMPLE_SIZE distinct ids
// it would send: the roster's size first (GET /creators?pageSize=1; an empty roster means every id
// is new), then each id (GET /creators/{externalId}, 404: new). One new id stops the import (exit 2,
// naming its line and the column to map); all of them stored: the import goes on, saying nothing.
// A --dry-run asks nothing (it needs no credentials): it warns instead.
import { getCreator, listCreators } from "../../../api/creators.js";
import type { ApiClient } from "../../../api/client.js";
import type { Context } from "../../../context.js";
import type { CsvRecord } from "../../../csv/read.js";
import { nameLikeColumn, shellHeader } from "../../../csv/headers.js";
import { checkRosterRow, showId } from "../../../csv/roster.js";
import { ApiError, UsageError } from "../../../errors.js";
import type { RosterSource } from "./read.js";
import type { ImportSettings } from "./state.js";

/** How many distinct ids are looked up. */
const SAMPLE_SIZE = 20;
/** The most records read (and held) for the sample: a file of rejected or repeated rows is not held whole. */
const SAMPLE_MAX_RECORDS = 10_000;

interface Sampled {
  line: number;
  externalId: string;
}

/**
 * The first `n` distinct ids of rows that would be sent, with their lines (fewer when the blocks
 * holding the first SAMPLE_MAX_RECORDS records have fewer). The blocks read for them are handed out
 * again: the source returned reads the same records as `src` would have.
 */
async function sampleIds(
  src: RosterSource,
  clearEmpty: boolean,
  n: number,
): Promise<{ sample: Sampled[]; src: RosterSource }> {
  const read: CsvRecord[][] = [];
  const sample: Sampled[] = [];
  const seen = new Set<string>();
  let records = 0;
  while (sample.length < n && records < SAMPLE_MAX_RECORDS) {
    const next = await src.blocks.next();
    if (next.done) break;
    read.push(next.value);
    records += next.value.length;
    for (const rec of next.value) {
      const item = checkRosterRow(rec.cells, src.map, { clearEmpty }).item;
      if (!item || seen.has(item.externalId)) continue;
      seen.add(item.externalId);
      sample.push({ line: rec.line, externalId: item.externalId });
      if (sample.length === n) break;
    }
  }
  const rest = src.blocks;
  const blocks = (async function* () {
    yield* read;
    yield* rest;
  })();
  const close = async () => {
    await blocks.return(undefined);
    await src.close();
  };
  return { sample, src: { ...src, blocks, close } };
}

/** The first id of `sample` the service does not have (in file order), looked up `width` at a time. */
async function firstNew(api: ApiClient, sample: Sampled[], width: number): Promise<Sampled | undefined> {
  for (let i = 0; i < sample.length; i += width) {
    const part = sample.slice(i, i + width);
    const stored = await Promise.all(
      part.map((s) =>
        getCreator(api, s.externalId).then(
          () => true,
          (err: unknown) => {
            if (err instanceof ApiError && err.status === 404) return false;
            throw err;
          },
        ),
      ),
    );
    const at = stored.indexOf(false);
    if (at >= 0) return part[at];
  }
  return undefined;
}

/** The hint: the column that looks like the names, or how to add or map one. */
function mapHint(src: RosterSource): string {
  const column = nameLikeColumn(src.map);
  return column
    ? `If "${column}" holds the names, run again with --column name=${shellHeader(column)}; otherwise map the column that does with --column name="HEADER".`
    : 'Add a name column (name, "Full Name", Nombre, Nom, Name, Nome) or map the one that holds the names with --column name="HEADER".';
}

/**
 * Stops an import without a name column that would create a creator (see the top of this file).
 * Returns the source to read on with (the sampled records included). On a throw, closing `src` is
 * enough.
 */
export async function checkNameColumn(
  ctx: Context,
  s: ImportSettings,
  src: RosterSource,
): Promise<RosterSource> {
  if (src.map.index.name !== undefined) return src;
  const { sample, src: kept } = await sampleIds(src, s.clearEmpty, SAMPLE_SIZE);
  if (sample.length === 0) return kept;
  if (s.dryRun) {
    ctx.io.err(
      `Warning: ${s.file} has no name column, so it can only update creators already in the roster: the service rejects a new creator without a name. A dry run does not ask which ids exist; the import will look up the first ${SAMPLE_SIZE} and stop before sending if one is new.`,
    );
    ctx.io.err(`  ${mapHint(kept)}`);
    return kept;
  }
  const api = await ctx.api();
  const roster = await listCreators(api, { pageSize: 1 });
  const fresh = roster.totalCount === 0 ? sample[0] : await firstNew(api, sample, s.concurrency);
  if (!fresh) return kept;
  throw new UsageError(
    `${s.file} has no name column, and line ${fresh.line}'s creator ${showId(fresh.externalId)} is not in the roster${roster.totalCount === 0 ? " (it is empty)" : ""}: the service requires a name for a new creator, so it would reject that row and every other new one. Nothing was sent.`,
    mapHint(kept),
  );
}
