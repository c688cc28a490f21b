// Renders a lifecycle email: the template's text fields (with an application's override) filled with the values,
// then the facts block (references, lines, totals) and the button, in one branded MJML layout compiled with strict
// validation. Every value, the merchant's own text included, is HTML-escaped before it enters the MJML.
import escapeHtml from "escape-html";
import type mjml2htmlType from "mjml";
import { type Brand, EMAIL_TEMPLATES, type EmailSummary, type EmailVars, type TemplateName, type TemplateText } from "./templates";

// MJML and its HTML/CSS tool chain load on the first rendered email, not at every process start.
let mjmlFn: typeof mjml2htmlType | null = null;
const mjmlToHtml = () => (mjmlFn ??= require("mjml") as typeof mjml2htmlType);

/** {{name}} -> the variable's value (missing ones become an em dash), each through `wrap`. */
function fill(text: string, vars: EmailVars, wrap: (s: string) => string, escapeText: (s: string) => string) {
  const parts = text.split(/(\{\{\s*[A-Za-z]+\s*\}\})/);
  return parts
    .map((p) => {
      const m = /^\{\{\s*([A-Za-z]+)\s*\}\}$/.exec(p);
      if (!m) return escapeText(p);
      const v = (vars as unknown as Record<string, unknown>)[m[1]];
      return wrap(typeof v !== "string" || v === "" ? "—" : v);
    })
    .join("");
}

const COLOR = /^#[0-9a-fA-F]{6}$/;
const identity = (s: string) => s;
const MUTED = "#52525b";
const INK = "#111827";

export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

/** The facts block as MJML: references, then a table of lines and totals. */
function summaryMjml(s: EmailSummary): string {
  const e = escapeHtml;
  const facts = s.facts.length
    ? `<mj-table font-size="14px" color="${INK}" cellpadding="2px" padding-bottom="8px">${s.facts
        .map((f) => `<tr><td style="color:${MUTED};width:40%;padding:2px 8px 2px 0;vertical-align:top">${e(f.label)}</td><td style="font-weight:600;vertical-align:top">${e(f.value)}</td></tr>`)
        .join("")}</mj-table>`
    : "";
  const line = (l: EmailSummary["lines"][number]) =>
    `<tr style="border-bottom:1px solid #e5e7eb"><td style="padding:8px 8px 8px 0">${e(l.name)}${l.note ? `<br /><span style="color:${MUTED};font-size:12px">${e(l.note)}</span>` : ""}</td>` +
    `<td style="padding:8px;text-align:right;white-space:nowrap">× ${l.quantity}</td><td style="padding:8px 0;text-align:right;white-space:nowrap">${e(l.amount)}</td></tr>`;
  const total = (t: EmailSummary["totals"][number]) =>
    `<tr><td colspan="2" style="padding:4px 8px 4px 0;text-align:right;${t.strong ? `font-weight:700;color:${INK}` : `color:${MUTED}`}">${e(t.label)}</td>` +
    `<td style="padding:4px 0;text-align:right;white-space:nowrap;${t.strong ? "font-weight:700" : ""}">${e(t.amount)}</td></tr>`;
  const table =
    s.lines.length || s.totals.length
      ? `<mj-table font-size="14px" color="${INK}" padding-top="8px">${
          s.lines.length
            ? `<tr style="border-bottom:1px solid #d4d4d8;text-align:left;color:${MUTED};font-size:12px"><th style="padding:0 8px 6px 0;font-weight:600">Item</th><th style="padding:0 8px 6px;text-align:right;font-weight:600">Qty</th><th style="padding:0 0 6px;text-align:right;font-weight:600">Amount</th></tr>`
            : ""
        }${s.lines.map(line).join("")}${s.totals.map(total).join("")}</mj-table>`
      : "";
  return facts + table;
}

function summaryText(s: EmailSummary): string[] {
  return [
    ...s.facts.map((f) => `${f.label}: ${f.value}`),
    ...(s.lines.length ? ["", ...s.lines.map((l) => `${l.name} x ${l.quantity}: ${l.amount}${l.note ? ` (${l.note})` : ""}`)] : []),
    ...(s.totals.length ? ["", ...s.totals.map((t) => `${t.label}: ${t.amount}`)] : []),
  ];
}

/** Renders a template (with an application's override) for the given values; MJML validation is strict. */
export async function renderEmail(name: TemplateName, vars: EmailVars, brand: Brand, override?: Partial<TemplateText> | null): Promise<RenderedEmail> {
  const def = EMAIL_TEMPLATES[name];
  const t: TemplateText = {
    subject: override?.subject ?? def.subject,
    heading: override?.heading ?? def.heading,
    body: override?.body ?? def.body,
    ctaLabel: override?.ctaLabel !== undefined ? override.ctaLabel : def.ctaLabel,
  };
  const subject = fill(t.subject, vars, identity, identity).replace(/[\r\n]+/g, " ").slice(0, 250);
  const html = (s: string) => fill(s, vars, escapeHtml, escapeHtml).replace(/\n/g, "<br />");
  const plain = (s: string) => fill(s, vars, identity, identity);
  const color = brand.brandColor && COLOR.test(brand.brandColor) ? brand.brandColor : "#1f2937";
  const ctaUrl = def.cta ? vars[def.cta] : undefined;
  const pdfUrl = def.cta === "quoteUrl" && vars.pdfUrl ? vars.pdfUrl : undefined;
  const logo = brand.logoUrl && /^https?:\/\//.test(brand.logoUrl) ? brand.logoUrl : null;
  const from = brand.legalName && brand.legalName !== brand.name ? `${brand.name} (${brand.legalName})` : brand.name;
  const footer = [from, brand.supportEmail].filter(Boolean).map((s) => escapeHtml(s!)).join(" · ");
  // the inbox line under the subject: what the email says first, without the heading's repetition
  const preheader = plain(t.body).replace(/\s+/g, " ").slice(0, 140);
  const mjml = `<mjml>
  <mj-head>
    <mj-title>${escapeHtml(subject)}</mj-title>
    <mj-preview>${escapeHtml(preheader)}</mj-preview>
    <mj-attributes><mj-all font-family="Helvetica, Arial, sans-serif" /></mj-attributes>
  </mj-head>
  <mj-body background-color="#f4f4f5">
    <mj-section background-color="#ffffff" border-top="4px solid ${color}" padding="24px 8px">
      <mj-column>
        ${logo ? `<mj-image src="${escapeHtml(logo)}" alt="${escapeHtml(brand.name)}" width="120px" align="left" padding-bottom="16px" />` : `<mj-text font-size="13px" font-weight="bold" color="${MUTED}" padding-bottom="4px">${escapeHtml(brand.name)}</mj-text>`}
        <mj-text font-size="20px" font-weight="bold" line-height="1.3" color="${INK}">${html(t.heading)}</mj-text>
        <mj-text font-size="15px" line-height="1.5" color="#1f2937">${html(t.body)}</mj-text>
        ${t.ctaLabel && ctaUrl ? `<mj-button background-color="${color}" color="#ffffff" font-size="15px" font-weight="bold" inner-padding="12px 24px" href="${escapeHtml(ctaUrl)}" align="left">${html(t.ctaLabel)}</mj-button>` : ""}
        ${vars.summary ? summaryMjml(vars.summary) : ""}
        ${pdfUrl ? `<mj-text font-size="14px" color="${INK}"><a href="${escapeHtml(pdfUrl)}" style="color:${INK}">Download the quote as a PDF</a></mj-text>` : ""}
        <mj-divider border-color="#e5e7eb" border-width="1px" />
        <mj-text font-size="12px" color="${MUTED}">${footer}</mj-text>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`;
  const out = await mjmlToHtml()(mjml, { validationLevel: "strict" });
  const text = [
    plain(t.heading),
    "",
    plain(t.body),
    ...(t.ctaLabel && ctaUrl ? ["", `${plain(t.ctaLabel)}: ${ctaUrl}`] : []),
    ...(vars.summary ? ["", ...summaryText(vars.summary)] : []),
    ...(pdfUrl ? ["", `PDF: ${pdfUrl}`] : []),
    "",
    [from, brand.supportEmail].filter(Boolean).join(" · "),
  ].join("\n");
  return { subject, html: out.html, text };
}
