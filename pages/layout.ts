// Server-rendered buyer pages share this shell: no external assets (the page works offline), escaped text only.
import escapeHtml from "escape-html";
import { formatMoneySymbol } from "../src/shared/money";

export const esc = (v: unknown) => escapeHtml(v === null || v === undefined ? "" : String(v));

/** Minor units by the currency's own digits (a JPY amount has none), with its symbol. */
export const money = (minor: number, currency: string) => formatMoneySymbol(minor, currency);

/**
 * `nonce`: the response's CSP nonce (securePage): the only inline style and script that run carry it.
 * `extra.head` / `extra.end`: markup placed last in <head> / last in <body> (checkout's application scripts).
 */
export function page(nonce: string, title: string, body: string, script = "", extra: { head?: string; end?: string } = {}) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><link rel="icon" href="data:,">
<style nonce="${esc(nonce)}">
  body { font-family: system-ui, sans-serif; max-width: 720px; margin: 2rem auto; padding: 0 1rem; color: #1f2933; }
  table { width: 100%; border-collapse: collapse; margin: 1rem 0; } td, th { padding: .4rem; border-bottom: 1px solid #e4e7eb; text-align: left; }
  td.num, th.num { text-align: right; } fieldset { border: 1px solid #cbd2d9; border-radius: 6px; margin: 1rem 0; }
  label { display: block; margin: .5rem 0; } input[type=text], input[type=email] { width: 100%; padding: .4rem; box-sizing: border-box; }
  button { background: #3e4c59; color: #fff; border: 0; padding: .7rem 1.4rem; border-radius: 6px; font-size: 1rem; cursor: pointer; }
  .error { color: #ab091e; } .ok { color: #0e7c3a; } .muted { color: #52606d; font-size: .9rem; }
  .merchant { font-weight: 600; margin: 0; } .badge { display: inline-block; background: #fff3c4; color: #5c4813; border: 1px solid #f0b429; border-radius: 4px; padding: .2rem .5rem; font-size: .9rem; }
</style>${extra.head ?? ""}</head>
<body>${body}${script ? `<script nonce="${esc(nonce)}">${script}</script>` : ""}${extra.end ?? ""}</body></html>`;
}
