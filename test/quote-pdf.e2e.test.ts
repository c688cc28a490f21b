// The quote PDF: rendered lazily with pdfmake from the issued revision, cached per revision, named Q-{seq}-rev{n}.pdf,
// re-rendered with the acceptance stamp on acceptance; GET /quote-links/{token}/pdf answers 302 to a short-lived signed
// URL that this app serves. The text is read back with pdftotext (poppler-utils), as a person would see it.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { FixedClock } from "../src/shared/clock";
import { startTestApp, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;
let clock: FixedClock;
const PDFTOTEXT = "/usr/bin/pdftotext";

beforeAll(async () => {
  clock = new FixedClock(new Date());
  t = (await startTestApp({ clock }))!;
  api = client(t.url);
  demo = await t.bootstrap();
});
afterAll(() => t?.close());

function pdfText(bytes: Buffer): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "qpdf-"));
  const f = path.join(dir, "q.pdf");
  writeFileSync(f, bytes);
  return execFileSync(PDFTOTEXT, ["-layout", f, "-"], { encoding: "utf8" });
}

async function fetchPdf(token: string) {
  const r = await fetch(`${t.url}/api/v1/quote-links/${token}/pdf`, { redirect: "manual" });
  expect(r.status).toBe(302);
  const location = r.headers.get("location")!;
  expect(location).toMatch(/\/files\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  const file = await fetch(new URL(location, t.url));
  expect(file.status).toBe(200);
  expect(file.headers.get("content-type")).toBe("application/pdf");
  expect(file.headers.get("cache-control")).toBe("private, no-store");
  return { location, disposition: file.headers.get("content-disposition")!, bytes: Buffer.from(await file.arrayBuffer()) };
}

test("302 to a signed URL of Q-{seq}-rev{n}.pdf; the text shows the offer and nothing internal; cached per revision; stamped on acceptance", async () => {
  if (!existsSync(PDFTOTEXT)) throw new Error("pdftotext is missing: apt-get install -y poppler-utils (the CI script installs it)");
  const c = await api("POST", "quotes", {
    key: demo.apiKey,
    body: {
      customerEmail: "pdf@example.com",
      companyName: "Globex",
      buyerReference: "PO-99",
      internalNote: "SECRET-NOTE-77",
      items: [
        { name: "Widget", unitPrice: 1500, quantity: 2, sku: "W-1", targetUnitPrice: 1111 },
        { name: "Gadget", unitPrice: 2500, quantity: 1, optional: true },
      ],
    },
  });
  const q0 = c.body.data;
  await api("POST", `quotes/${q0.id}/comments`, { key: demo.apiKey, body: { body: "INTERNAL-COMMENT-55", visibility: "internal" } });
  const q = (await api("POST", `quotes/${q0.id}/issue`, { key: demo.apiKey, body: {} })).body.data.quote;
  const first = await fetchPdf(q.shareToken);
  expect(first.bytes.subarray(0, 5).toString()).toBe("%PDF-");
  expect(first.disposition).toContain(`filename="${q.number}-rev1.pdf"`);
  const text = pdfText(first.bytes);
  for (const s of [q.number, "revision 1", "Globex", "PO-99", "Widget", "SKU W-1", "Gadget", "USD 55.00", "Paid in full"]) expect(text).toContain(s);
  for (const s of ["SECRET-NOTE-77", "INTERNAL-COMMENT-55", "11.11", "ACCEPTED"]) expect(text).not.toContain(s);

  // cached: the same bytes, without rendering again
  const again = await fetchPdf(q.shareToken);
  expect(again.bytes.equals(first.bytes)).toBe(true);

  // the signed URL: altered or expired is 404
  const tampered = first.location.replace(/.$/, (ch) => (ch === "A" ? "B" : "A"));
  expect((await fetch(new URL(tampered, t.url))).status).toBe(404);
  clock.advance(301_000);
  expect((await fetch(new URL(first.location, t.url))).status).toBe(404);

  // acceptance: a second rendering with the stamp (who, when, the accepted lines)
  const rev = q.revisions.find((r: any) => r.id === q.currentRevisionId);
  const acc = await api("POST", `quote-links/${q.shareToken}/accept`, { body: { revisionId: rev.id, acceptedByName: "Bea Buyer", acceptedByEmail: "bea@example.com", itemSelections: [{ itemId: rev.items[1].id, selected: false }] } });
  expect(acc.status).toBe(200);
  const stamped = await fetchPdf(q.shareToken);
  expect(stamped.disposition).toContain(`filename="${q.number}-rev1.pdf"`);
  const st = pdfText(stamped.bytes);
  for (const s of ["ACCEPTED", "Accepted by Bea Buyer <bea@example.com>", "Accepted lines: Widget x 2", "USD 30.00", "not selected"]) expect(st).toContain(s);
  expect(st).not.toContain("Gadget x");
});

test("404 for a draft quote's PDF, a rotated-out link and a revision-2 name after re-issue", async () => {
  const d = (await api("POST", "quotes", { key: demo.apiKey, body: { customerEmail: "pdf2@example.com", items: [{ name: "x", unitPrice: 100 }] } })).body.data;
  expect((await fetch(`${t.url}/api/v1/quote-links/${d.shareToken}/pdf`, { redirect: "manual" })).status).toBe(404);
  const q = (await api("POST", `quotes/${d.id}/issue`, { key: demo.apiKey, body: {} })).body.data.quote;
  await api("POST", `quotes/${q.id}/revisions`, { key: demo.apiKey, body: {} });
  const re = (await api("POST", `quotes/${q.id}/issue`, { key: demo.apiKey, body: {} })).body.data.quote;
  expect((await fetchPdf(re.shareToken)).disposition).toContain(`filename="${q.number}-rev2.pdf"`);
  const rotated = (await api("POST", `quotes/${q.id}/rotate-link`, { key: demo.apiKey, body: {} })).body.data;
  expect((await fetch(`${t.url}/api/v1/quote-links/${q.shareToken}/pdf`, { redirect: "manual" })).status).toBe(404);
  expect((await fetch(`${t.url}/api/v1/quote-links/${rotated.shareToken}/pdf`, { redirect: "manual" })).status).toBe(302);
});
