// The one PDF renderer (pdfmake) and the building blocks quotes and invoices draw their documents with: a header
// (wordmark, document title, number and dates), party blocks (seller, bill-to, ship-to), a lines table, a totals
// table, text sections and the page frame. pdfmake and its font stack load on the first PDF, not at every process
// start, and are configured once: the bundled Roboto fonts, nothing fetched while rendering (so a logo is drawn as the
// merchant's name in the brand colour, a wordmark), and only the fonts' own folder readable from disk (an image path
// in a document could reach nothing else).
import path from "node:path";
import type { Content, ContentTable, CustomTableLayout, StyleDictionary, TableCell, TDocumentDefinitions } from "pdfmake/interfaces";
import type { Address } from "./address";

type PdfMake = typeof import("pdfmake");
let engine: PdfMake | null = null;

function pdfmake(): PdfMake {
  if (engine) return engine;
  const pm = require("pdfmake") as PdfMake;
  pm.setFonts(require("pdfmake/fonts/Roboto.js"));
  pm.setUrlAccessPolicy(() => false);
  const fontsDir = path.dirname(require.resolve("pdfmake/fonts/Roboto.js")) + path.sep;
  pm.setLocalAccessPolicy((file) => path.resolve(file).startsWith(fontsDir));
  return (engine = pm);
}

/** Renders a pdfmake document definition to PDF bytes. */
export async function renderPdf(doc: TDocumentDefinitions): Promise<Buffer> {
  return Buffer.from(await pdfmake().createPdf(doc).getBuffer());
}

// ---- palette and styles ------------------------------------------------------------------------------------------

const INK = "#111827";
const MUTED = "#6b7280";
const RULE = "#e5e7eb";
const HEAD_FILL = "#f3f4f6";

/** The application's brand colour when it is a #rrggbb, else a neutral ink. */
export function brandColorOf(settings: unknown): string {
  const b = ((settings ?? {}) as { brandColor?: unknown }).brandColor;
  return typeof b === "string" && /^#[0-9a-fA-F]{6}$/.test(b) ? b : "#1f2937";
}

const STYLES: StyleDictionary = {
  wordmark: { fontSize: 20, bold: true },
  docTitle: { fontSize: 22, bold: true, color: INK, alignment: "right", characterSpacing: 1 },
  subtitle: { fontSize: 10, color: MUTED, alignment: "right" },
  label: { fontSize: 7.5, bold: true, color: MUTED, characterSpacing: 0.6 },
  partyName: { bold: true, fontSize: 10.5 },
  th: { bold: true, fontSize: 8.5, color: "#374151" },
  sectionTitle: { fontSize: 8, bold: true, color: MUTED, characterSpacing: 0.6, margin: [0, 14, 0, 3] },
  small: { fontSize: 8.5, color: MUTED },
};

// ---- header ------------------------------------------------------------------------------------------------------

export interface HeaderSpec {
  /** the merchant's name, drawn in the brand colour as the logo */
  wordmark: string;
  color: string;
  /** "QUOTE", "INVOICE" */
  title: string;
  /** under the title, e.g. "Q-12 · revision 1" */
  subtitle: string;
}

/** Wordmark left, document title and number right, then a rule in the brand colour. */
export function header(h: HeaderSpec): Content[] {
  return [
    {
      columns: [
        { text: h.wordmark, style: "wordmark", color: h.color, width: "*" },
        { stack: [{ text: h.title, style: "docTitle" }, { text: h.subtitle, style: "subtitle", margin: [0, 2, 0, 0] }], width: "auto" },
      ],
      columnGap: 16,
    },
    { canvas: [{ type: "line", x1: 0, y1: 0, x2: 515, y2: 0, lineWidth: 2, lineColor: h.color }], margin: [0, 10, 0, 16] },
  ];
}

// ---- parties -----------------------------------------------------------------------------------------------------

/** An address as lines: street, street 2, "City, State Postal", country code. */
export function addressLines(a: Address | null | undefined): string[] {
  if (!a) return [];
  const cityLine = [a.city, [a.stateProvince, a.postalCode].filter(Boolean).join(" ")].filter(Boolean).join(", ");
  return [a.addressLine1, a.addressLine2 ?? "", cityLine, a.countryCode].filter((l) => !!l);
}

export interface Party {
  /** "From", "Bill to", "Ship to", "Prepared for" */
  label: string;
  /** the first line, bold (company or legal name) */
  name: string | null;
  /** the rest, one per line (empty ones dropped) */
  lines: (string | null | undefined)[];
}

/** A labelled block of a party: the name bold, then its lines. Nothing when it has neither. */
export function partyBlock(p: Party): Content {
  const lines = p.lines.filter((l): l is string => !!l && l.trim() !== "");
  if (!p.name && !lines.length) return { text: "" };
  return {
    stack: [
      { text: p.label.toUpperCase(), style: "label", margin: [0, 0, 0, 3] },
      ...(p.name ? [{ text: p.name, style: "partyName" }] : []),
      ...lines.map((l) => ({ text: l })),
    ],
  };
}

export interface SellerParty {
  name: string;
  legalName: string | null;
  address: Address | null;
  taxId: string | null;
  email: string | null;
  phone: string | null;
}

/** The seller as a party: legal name, address, tax id and contact. */
export function sellerParty(s: SellerParty, label = "From"): Party {
  return {
    label,
    name: s.legalName ?? s.name,
    lines: [...addressLines(s.address), s.taxId ? `Tax ID: ${s.taxId}` : null, s.email, s.phone],
  };
}

/** A value that may hold one long unbroken token (a PO, an email): break opportunities after its - / . @ _ every so often. */
export function breakable(v: string): string {
  return v.replace(/\S{25,}/g, (w) => w.replace(/([-/._@])/g, "$1\u200b"));
}

/** Label / value pairs (number, dates, references), values right-aligned and wrapping; rows without a value are dropped. */
export function metaTable(rows: [string, string | null | undefined][]): Content {
  const body = rows.filter((r): r is [string, string] => !!r[1]).map(([k, v]) => [
    { text: k, color: MUTED, alignment: "right" as const },
    { text: breakable(v), bold: true, alignment: "right" as const },
  ]);
  if (!body.length) return { text: "" };
  // fixed widths that fit half the page (a blockRow of two): a long value wraps inside instead of widening the table
  return { table: { widths: [82, 150], body }, layout: { ...NO_LINES, paddingLeft: (i) => (i ? 8 : 0), paddingTop: () => 1.5, paddingBottom: () => 1.5 } };
}

/** Up to three blocks side by side (seller and meta, bill-to and ship-to), each its share of the width. */
export function blockRow(blocks: Content[], margin: [number, number, number, number] = [0, 0, 0, 16]): Content {
  return { columns: blocks.map((b) => ({ width: "*", stack: [b] })), columnGap: 20, margin };
}

// ---- lines and totals --------------------------------------------------------------------------------------------

const NO_LINES: CustomTableLayout = { hLineWidth: () => 0, vLineWidth: () => 0, paddingLeft: () => 0, paddingRight: () => 0 };

export interface LineRow {
  name: string;
  /** a grey note after the name: "Optional", "Optional · not selected" */
  flag?: string | null;
  /** small grey lines under the name: SKU, description */
  details?: (string | null | undefined)[];
  quantity: number;
  unitPrice: string;
  amount: string;
  /** drawn grey and struck through (a deselected line) */
  off?: boolean;
}

/** Item / Qty / Unit price / Amount, amounts right-aligned, a shaded header repeated on each page. */
export function linesTable(rows: LineRow[]): ContentTable {
  const head: TableCell[] = [
    { text: "ITEM", style: "th" },
    { text: "QTY", style: "th", alignment: "right" },
    { text: "UNIT PRICE", style: "th", alignment: "right" },
    { text: "AMOUNT", style: "th", alignment: "right" },
  ];
  const body: TableCell[][] = rows.map((r) => {
    const color = r.off ? MUTED : undefined;
    const details = (r.details ?? []).filter((d): d is string => !!d);
    return [
      {
        stack: [
          { text: [{ text: r.name, bold: true, decoration: r.off ? "lineThrough" : undefined }, ...(r.flag ? [{ text: `  (${r.flag})`, color: MUTED, fontSize: 8.5, bold: false }] : [])] },
          ...details.map((d) => ({ text: d, style: "small" })),
        ],
        color,
      },
      { text: String(r.quantity), alignment: "right", color, noWrap: true },
      { text: r.unitPrice, alignment: "right", color, noWrap: true },
      { text: r.amount, alignment: "right", color, noWrap: true },
    ];
  });
  return {
    table: { headerRows: 1, dontBreakRows: true, widths: ["*", 52, 104, 104], body: [head, ...body] },
    layout: {
      hLineWidth: (i, node) => (i === 0 ? 0 : i === 1 || i === node.table.body.length ? 1 : 0.5),
      vLineWidth: () => 0,
      hLineColor: (i) => (i === 1 ? "#9ca3af" : RULE),
      fillColor: (row) => (row === 0 ? HEAD_FILL : null),
      paddingTop: () => 6,
      paddingBottom: () => 6,
      paddingLeft: () => 6,
      paddingRight: () => 6,
    },
  };
}

export interface TotalRow {
  label: string;
  amount: string;
  /** the total / amount due: bold, larger, a rule above */
  strong?: boolean;
}

/** Label and amount pairs in a block on the right, amounts right-aligned; strong rows ruled and bold. */
export function totalsTable(rows: TotalRow[]): Content {
  return {
    columns: [
      { text: "", width: "*" },
      {
        width: 260,
        table: {
          widths: ["*", "auto"],
          body: rows.map((r) => [
            { text: r.label, bold: r.strong, fontSize: r.strong ? 11 : 10, color: r.strong ? INK : "#374151" },
            { text: r.amount, bold: r.strong, fontSize: r.strong ? 11 : 10, alignment: "right" as const, noWrap: true },
          ]),
        },
        layout: {
          hLineWidth: (i) => (i > 0 && i < rows.length && rows[i]?.strong ? 1 : 0),
          hLineColor: () => "#9ca3af",
          vLineWidth: () => 0,
          paddingLeft: () => 6,
          paddingRight: () => 6,
          paddingTop: (i) => (rows[i]?.strong ? 6 : 3),
          paddingBottom: (i) => (rows[i]?.strong ? 6 : 3),
        },
      },
    ],
    margin: [0, 10, 0, 8],
  };
}

// ---- text sections and the page frame ----------------------------------------------------------------------------

/** A titled paragraph (payment terms, remit-to, notes, terms); nothing when the text is empty. */
export function section(title: string, text: string | Content | null | undefined): Content[] {
  if (!text) return [];
  return [{ text: title.toUpperCase(), style: "sectionTitle" }, typeof text === "string" ? { text, lineHeight: 1.2 } : text];
}

/** A boxed note in a colour (the acceptance stamp, the amount due). */
export function box(content: Content, color: string, fill?: string): Content {
  return {
    table: { widths: ["*"], body: [[{ stack: [content], margin: [10, 8, 10, 8], fillColor: fill }]] },
    layout: { hLineColor: () => color, vLineColor: () => color },
    margin: [0, 12, 0, 0],
  };
}

export interface FrameSpec {
  title: string;
  author: string;
  subject: string;
  /** the footer's left text, e.g. "Q-12-rev1" or "Invoice INV-4 · Acme Inc." */
  footer: string;
  content: Content[];
}

/** A4, generous margins, Roboto 10, the shared styles, "… · page n of m" in the footer. */
export function pdfDocument(f: FrameSpec): TDocumentDefinitions {
  return {
    info: { title: f.title, author: f.author, subject: f.subject },
    pageSize: "A4",
    pageMargins: [40, 44, 40, 52],
    content: f.content,
    defaultStyle: { font: "Roboto", fontSize: 10, color: INK },
    styles: STYLES,
    footer: (page, pages) => ({
      columns: [
        { text: f.footer, fontSize: 8, color: MUTED },
        { text: `page ${page} of ${pages}`, alignment: "right", fontSize: 8, color: MUTED },
      ],
      margin: [40, 18, 40, 0],
    }),
  };
}
