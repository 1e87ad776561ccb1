// The plain-code batch-item check used by roster import on every row agrees with the shared schema:
// it never accepts what CreatorBatchItem rejects, and what it accepts parses to the same value.
import { describe, expect, it } from "vitest";
import { CreatorBatchItem, fastCreatorBatchItem } from "../../src/spec/creators.js";
import { LIMITS } from "../../src/spec/limits.js";

const long = (n: number, c = "a") => c.repeat(n);
const texts = [
  "",
  " ",
  "x",
  "  padded  ",
  "two\nlines",
  "cr\rhere",
  "sep\u2028x",
  "Søren 张伟",
  "😀".repeat(LIMITS.creatorNameMax),
  "😀".repeat(LIMITS.creatorNameMax + 1),
  long(LIMITS.creatorExternalIdMax),
  long(LIMITS.creatorExternalIdMax + 1),
  long(LIMITS.creatorNameMax + 1),
  long(LIMITS.creatorHandleMax + 1),
  `${long(LIMITS.creatorEmailMax - 12)}@example.com`,
  `${long(LIMITS.creatorEmailMax - 11)}@example.com`,
  "a@b.co",
  " a@b.co ",
  "not-an-email",
  "a@@b.co",
  "a@b",
  "a b@c.de",
  "ü@münchen.de",
  "@handle",
];

describe("fastCreatorBatchItem", () => {
  it("accepts exactly what CreatorBatchItem accepts on the common shapes, with the same value", () => {
    let accepted = 0;
    let checked = 0;
    const values: unknown[] = [...texts, null, undefined];
    for (const externalId of texts)
      for (const v of values)
        for (const field of ["name", "email", "handle"] as const)
          for (const active of [undefined, true, false, "yes"]) {
            const raw: Record<string, unknown> = { externalId };
            if (v !== undefined) raw[field] = v;
            if (active !== undefined) raw.active = active;
            const fast = fastCreatorBatchItem(raw as { externalId: string });
            const schema = CreatorBatchItem.safeParse(raw);
            checked++;
            if (schema.success) {
              expect(fast, JSON.stringify(raw)).toEqual(schema.data);
              accepted++;
            } else expect(fast, JSON.stringify(raw)).toBeUndefined();
          }
    expect(accepted).toBeGreaterThan(1000);
    expect(checked - accepted).toBeGreaterThan(1000);
  });

  it("leaves a non-string externalId to the schema", () => {
    expect(fastCreatorBatchItem({ externalId: 42 })).toBeUndefined();
    expect(fastCreatorBatchItem({ externalId: "a", name: 3 })).toBeUndefined();
  });
});
