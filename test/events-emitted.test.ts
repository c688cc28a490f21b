// GET /event-types says which types the service emits today. The list behind it (EMITTED_TODAY) is compared both
// ways with the event types the code actually records: a new recordEvent call without the list, or a listed type
// nothing records, fails here.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { EMITTED_TODAY, EVENT_TYPES, eventTypeInfo } from "../src/events/catalog";

const SRC = path.resolve(__dirname, "../src");
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    if (statSync(p).isDirectory()) return f === "generated" ? [] : files(p);
    return p.endsWith(".ts") ? [p] : [];
  });
}

/** The type literals passed to recordEvent / newEvent / paymentEvent / subscriptionEvent / sendToEndpoint: the call's first line names them in this code base. */
function recordedTypes(): Set<string> {
  const found = new Set<string>();
  for (const file of files(SRC)) {
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (!/\b(recordEvent|newEvent|paymentEvent|subscriptionEvent|sendToEndpoint)\(/.test(line) || /function (recordEvent|newEvent|paymentEvent|subscriptionEvent|sendToEndpoint)/.test(line)) continue;
      for (const m of line.matchAll(/"([a-z_]+\.[a-z_.]+)"/g)) found.add(m[1]);
    }
  }
  return found;
}

test("EMITTED_TODAY is exactly the set of types the code records", () => {
  const recorded = recordedTypes();
  expect(recorded.size).toBeGreaterThan(20);
  expect([...recorded].filter((t) => !EMITTED_TODAY.has(t)).sort()).toEqual([]);
  expect([...EMITTED_TODAY].filter((t) => !recorded.has(t)).sort()).toEqual([]);
});

test("every emitted type is in the catalog, and the catalog flags them", () => {
  expect([...EMITTED_TODAY].filter((t) => !EVENT_TYPES.includes(t))).toEqual([]);
  expect(eventTypeInfo("order.created").emitted).toBe(true);
  expect(eventTypeInfo("order.fulfilled").emitted).toBe(true); // fulfillments, and POST /orders/{id}/status to fulfilled
  expect(eventTypeInfo("order.sync_failed").emitted).toBe(false);
  expect(EVENT_TYPES.filter((t) => eventTypeInfo(t).emitted).sort()).toEqual([...EMITTED_TODAY].sort());
});
