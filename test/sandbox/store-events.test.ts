// The event log's storage (db-events.ts): rows keyed by an organization number with the data only,
// appends held back within a transaction and written in batches (read back inside the same
// transaction and after the commit).
import { describe, expect, it } from "vitest";
import { SandboxStore } from "../../src/sandbox/store.js";

const ORG = "5b0f7a3e-1c2d-4e5f-8a9b-0c1d2e3f4a5b";
const envelope = (n: number) => ({
  id: `0190a1b2-c3d4-7${String(n).padStart(3, "0")}-8000-00000000000${n % 10}`,
  type: n % 2 ? "code.issued" : "redemption.recorded",
  occurredAt: `2026-11-2${n % 3}T05:00:0${n % 10}Z`,
  organizationId: ORG,
  sample: false,
  data: { n, name: 'Mü "quoted" \u2028', rate: 0.1, nested: { list: [1, null, true] } },
});

describe("the event log's storage", () => {
  it("reads its own appends within the transaction and after the commit, across batch boundaries", async () => {
    const store = await SandboxStore.open();
    try {
      store.write(() => {
        store.organizations.set(ORG, {
          id: ORG,
          name: "New",
          reportingTimeZone: "UTC",
          active: true,
          alertRecipients: [],
        });
      });
      const log = store.orgs.get(ORG)!.events;
      const made = Array.from({ length: 450 }, (_, n) => ({
        ...envelope(n),
        id: `0190a1b2-c3d4-7000-8000-${String(n).padStart(12, "0")}`,
        occurredAt: "2026-11-28T05:00:00Z",
      }));
      store.write(() => {
        for (const e of made.slice(0, 201)) log.append(e);
        // Read inside the transaction: the held-back rows are written first.
        expect(log.length).toBe(201);
        expect(log.get(made[200]!.id)).toEqual(made[200]);
        for (const e of made.slice(201)) log.append(e);
      });
      expect(log.list()).toEqual(made);
      // Outside a transaction an append is written at once.
      const late = {
        ...envelope(1),
        id: "0190a1b2-c3d4-7000-8000-999999999999",
        occurredAt: "2026-11-28T05:00:01Z",
      };
      log.append(late);
      expect(log.get(late.id)).toEqual(late);
      expect(log.length).toBe(451);
    } finally {
      store.close();
    }
  });
});
