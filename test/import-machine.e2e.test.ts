// The import status table and its compare-and-set moves against a real database.
import { canMoveImport, IMPORT_STATUSES, IMPORT_TRANSITIONS, moveImport } from "../src/imports/import.machine";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { makeCtx } from "../src/shared/context";
import { DomainError } from "../src/shared/errors";
import { startTestApp, type TestApp } from "./helpers/app";

let t: TestApp;
let demo: BootstrapResult;
beforeAll(async () => {
  t = (await startTestApp())!;
  demo = await t.bootstrap();
});
afterAll(async () => {
  await t?.close();
});

test("the table: commit only from validated or failed, undo only after a commit, undone is terminal", () => {
  const into = (to: string) => IMPORT_STATUSES.filter((s) => canMoveImport(s, to as any));
  expect(into("committing")).toEqual(["validated", "failed"]);
  expect(into("undoing")).toEqual(["completed", "failed"]);
  expect(into("validating")).toEqual(["mapping", "validated", "failed"]);
  expect(into("validated")).toEqual(["validating"]);
  expect(into("completed")).toEqual(["committing", "undoing"]);
  expect(IMPORT_TRANSITIONS.undone).toEqual([]);
  expect(canMoveImport("created", "validating")).toBe(false);
  expect(canMoveImport("bogus", "mapping")).toBe(false);
  for (const targets of Object.values(IMPORT_TRANSITIONS)) for (const s of targets) expect(IMPORT_STATUSES).toContain(s);
});

async function newImport() {
  return t.db.prisma.import.create({
    data: { applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id, entityType: "customer", fileName: "a.csv", fileFormat: "csv", fileBytes: 1, fileKey: "imports/x/a.csv", contentType: "text/csv" },
  });
}

test("a forbidden move is 409 invalid_import_state; a stale status is 409 conflict and writes nothing", async () => {
  const ctx = makeCtx(t.deps);
  const imp = await newImport();
  await expect(moveImport(ctx, imp, "committing")).rejects.toMatchObject({ code: "invalid_import_state", status: 409 });
  const moved = await moveImport(ctx, imp, "mapping", { dateOrder: "dmy" });
  expect(moved).toMatchObject({ status: "mapping", dateOrder: "dmy" });
  const stale = moveImport(ctx, imp, "mapping", { dateOrder: "mdy" }); // imp still says created
  await expect(stale).rejects.toMatchObject({ code: "conflict", status: 409 });
  expect((await t.db.prisma.import.findUniqueOrThrow({ where: { id: imp.id } })).dateOrder).toBe("dmy");
});

test("two racing moves from one status: exactly one wins", async () => {
  const ctx = makeCtx(t.deps);
  const imp = await moveImport(ctx, await newImport(), "mapping");
  const results = await Promise.allSettled([moveImport(makeCtx(t.deps), imp, "validating"), moveImport(makeCtx(t.deps), imp, "validating")]);
  expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
  const lost = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
  expect(lost.reason).toBeInstanceOf(DomainError);
  expect(lost.reason.code).toBe("conflict");
});
