// One property over every buyer-facing surface of a quote: whatever mix of shared and internal comments and
// internal notes a quote collects, no internal text ever reaches the link read, the page's HTML, the PDF's text,
// a buyer email or a webhook payload (the quote.* events), and every shared comment does reach the link and the page.
// Random mixes from a seeded generator, several rounds; the PDF is read back with pdftotext.
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { findJob } from "../jobs/registry";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;

beforeAll(async () => {
  t = (await startTestApp({ env: { RATE_LIMIT_PER_CREDENTIAL: "off", RATE_LIMIT_QUOTE_LINKS_PER_IP: "off", RATE_LIMIT_QUOTE_LINKS_PER_TOKEN: "off" } }))!;
  api = client(t.url);
  demo = await t.bootstrap();
});
afterAll(() => t?.close());

/** mulberry32: a small seeded generator, so a failing mix can be replayed. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

function pdfText(bytes: Buffer) {
  const f = path.join(mkdtempSync(path.join(os.tmpdir(), "surf-")), "q.pdf");
  writeFileSync(f, bytes);
  return execFileSync("/usr/bin/pdftotext", [f, "-"], { encoding: "utf8" });
}

test.each([11, 23, 37, 41, 59])("seed %i: internal text never reaches a buyer surface; shared text does", async (seed) => {
  const rand = rng(seed);
  const marker = (kind: string) => `${kind}${seed}x${Math.floor(rand() * 1e9)}`;
  const internal: string[] = [];
  const shared: string[] = [];
  const note = marker("NOTE");
  internal.push(note);
  const c = await api("POST", "quotes", { key: demo.apiKey, body: { customerEmail: `surf${seed}@example.com`, internalNote: note, items: [{ name: "Widget", unitPrice: 1000, quantity: 2, optional: rand() < 0.5 }, { name: "Setup", unitPrice: 5000 }] } });
  const id = c.body.data.id;
  const comment = async () => {
    const isInternal = rand() < 0.5;
    const body = marker(isInternal ? "INTERNAL" : "SHARED");
    (isInternal ? internal : shared).push(body);
    expect((await api("POST", `quotes/${id}/comments`, { key: demo.apiKey, body: { body, visibility: isInternal ? "internal" : "shared" } })).status).toBe(201);
  };
  const n = 2 + Math.floor(rand() * 4);
  for (let i = 0; i < n; i++) await comment();
  const q = (await api("POST", `quotes/${id}/issue`, { key: demo.apiKey, body: {} })).body.data.quote;
  for (let i = 0; i < n; i++) await comment();
  const newNote = marker("NOTE");
  internal.push(newNote);
  await api("PATCH", `quotes/${id}`, { key: demo.apiKey, body: { internalNote: newNote } });
  await api("POST", `quote-links/${q.shareToken}/comments`, { body: { body: "buyer says hi" } });
  if (rand() < 0.5) await api("POST", `quote-links/${q.shareToken}/accept`, { body: { revisionId: q.currentRevisionId, acceptedByName: "Bea" } });

  const surfaces: Record<string, string> = {};
  surfaces.link = JSON.stringify((await api("GET", `quote-links/${q.shareToken}`)).body);
  surfaces.page = await (await fetch(`${t.url}/q/${q.shareToken}`)).text();
  const pdf = await fetch(`${t.url}/api/v1/quote-links/${q.shareToken}/pdf`);
  surfaces.pdf = pdfText(Buffer.from(await pdf.arrayBuffer()));
  await findJob("mail-dispatch")!.run({ deps: t.deps, deliveries: t.deliveries });
  const emails = await t.deps.prisma.email.findMany({ where: { quoteId: id, audience: "buyer" } });
  expect(emails.length).toBeGreaterThan(0);
  surfaces.buyerEmails = emails.map((e) => `${e.subject}\n${e.html}\n${e.text}\n${JSON.stringify(e.vars)}`).join("\n");
  const events = await t.deps.prisma.event.findMany({ where: { type: { startsWith: "quote." } } });
  surfaces.webhooks = JSON.stringify(events.filter((e) => (e.data as any).quoteId === id).map((e) => e.data));

  for (const [where, text] of Object.entries(surfaces)) {
    for (const secret of internal) expect({ where, leaked: text.includes(secret) ? secret : null }).toEqual({ where, leaked: null });
  }
  for (const s of shared) {
    expect(surfaces.link).toContain(s);
    expect(surfaces.page).toContain(s);
  }
});
