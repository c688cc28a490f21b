// The stylesheet of the buyer's quote page and request form, mobile first: at 390 px the lines are cards (no table to
// scroll, no amount clipped), inputs are 16 px (no zoom on focus) and every control is at least 44 px tall. Colour
// comes from Shell's custom properties: --brand for surfaces, --on-brand for text on them, --brand-text for
// brand-coloured text on white (pages/components/brand.ts keeps both at WCAG AA).
export const CSS = () => `
  * { box-sizing: border-box; }
  html { font-size: 16px; -webkit-text-size-adjust: 100%; }
  body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1f2933; background: #f5f7fa; line-height: 1.5; }
  main { max-width: 920px; margin: 0 auto; padding: .75rem; }
  header { display: flex; align-items: center; gap: .75rem; border-top: 5px solid var(--brand); background: #fff; padding: .75rem 1rem; border-bottom: 1px solid #e4e7eb; }
  header img { max-height: 40px; max-width: 160px; }
  a { color: var(--brand-text); }
  h1 { font-size: 1.45rem; margin: .5rem 0 .25rem; line-height: 1.25; } h2 { font-size: 1.1rem; margin: 0 0 .5rem; } h3 { font-size: 1rem; margin: 0 0 .25rem; }
  .card { background: #fff; border: 1px solid #e4e7eb; border-radius: 10px; padding: 1rem; margin: .75rem 0; }
  .muted { color: #52606d; font-size: .92rem; }
  .meta { margin: 0 0 .5rem; }
  .badge { display: inline-block; vertical-align: middle; padding: .15rem .6rem; border-radius: 999px; font-size: .85rem; font-weight: 600; background: #e4e7eb; color: #1f2933; }
  .badge.good { background: #e3f9e5; color: #0e5e2a; } .badge.bad { background: #fde8e8; color: #8a1c1c; } .badge.warn { background: #fff3c4; color: #6b4a00; }
  .notice { border-left: 5px solid #52606d; background: #fff; padding: .75rem 1rem; margin: .75rem 0; border-radius: 6px; border-top: 1px solid #e4e7eb; border-right: 1px solid #e4e7eb; border-bottom: 1px solid #e4e7eb; }
  .notice.good { border-left-color: #1f7a3d; background: #f0fbf2; } .notice.bad { border-left-color: #ab091e; background: #fff5f5; } .notice.warn { border-left-color: #b7791f; background: #fffbeb; }
  .notice p { margin: .25rem 0; }
  .alert { border-left: 5px solid #ab091e; background: #fde8e8; padding: .75rem 1rem; margin: .75rem 0; border-radius: 6px; }
  .grid { display: grid; grid-template-columns: minmax(0, 1fr); gap: .75rem; align-items: start; } @media (min-width: 760px) { .grid { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); } }
  .grid > .card { margin: 0; }
  address { font-style: normal; overflow-wrap: anywhere; }
  dl.facts { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 3fr); gap: .4rem 1rem; margin: 0 0 .5rem; }
  @media (min-width: 760px) { dl.facts { grid-template-columns: minmax(12rem, max-content) minmax(0, 1fr); } }
  dl.facts dt { color: #52606d; } dl.facts dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }
  table { width: 100%; border-collapse: collapse; }
  th, td { padding: .6rem .4rem; border-bottom: 1px solid #e4e7eb; text-align: left; vertical-align: top; }
  .num { text-align: right; white-space: nowrap; }
  caption { text-align: left; font-weight: 700; font-size: 1.1rem; padding-bottom: .5rem; }
  .lines .name { font-weight: 600; overflow-wrap: anywhere; }
  .off td { color: #52606d; } .off .name { text-decoration: line-through; }
  .totals { width: 100%; margin-top: .5rem; } .totals td { border: 0; padding: .3rem .4rem; } .totals .grand td { font-weight: 700; font-size: 1.15rem; border-top: 2px solid #1f2933; padding-top: .5rem; }
  @media (max-width: 520px) {
    .lines thead { position: absolute; left: -10000px; width: 1px; height: 1px; overflow: hidden; }
    .lines tr, .lines td { display: block; }
    .lines tr { border: 1px solid #e4e7eb; border-radius: 8px; padding: .5rem .75rem; margin-bottom: .6rem; }
    .lines td { border: 0; padding: .2rem 0; text-align: left; }
    .lines td.num { display: flex; justify-content: space-between; gap: 1rem; align-items: center; white-space: normal; }
    .lines td.num::before { content: attr(data-label); color: #52606d; font-weight: 400; }
    .lines td.amount { font-weight: 700; }
  }
  label { display: block; margin: .6rem 0 .2rem; font-weight: 600; }
  label.check { display: flex; align-items: center; gap: .6rem; min-height: 44px; margin: 0; font-weight: 600; cursor: pointer; }
  input[type=checkbox] { width: 22px; height: 22px; flex: none; accent-color: var(--brand-text); }
  input[type=text], input[type=email], input[type=tel], input[type=number], textarea { width: 100%; min-height: 44px; padding: .55rem .65rem; border: 1px solid #7b8794; border-radius: 6px; font: inherit; font-size: 1rem; background: #fff; color: #1f2933; }
  input.qty { width: 6rem; text-align: right; }
  textarea { min-height: 6rem; }
  input:focus-visible, textarea:focus-visible, button:focus-visible, a:focus-visible, summary:focus-visible { outline: 3px solid #2563eb; outline-offset: 2px; }
  button, .button { display: inline-flex; align-items: center; justify-content: center; min-height: 48px; background: var(--brand); color: var(--on-brand); border: 0; padding: .7rem 1.25rem; border-radius: 8px; font: inherit; font-size: 1rem; font-weight: 700; cursor: pointer; text-decoration: none; }
  button.secondary, .button.secondary { background: #fff; color: #1f2933; border: 1px solid #7b8794; font-weight: 600; }
  a.action { display: inline-flex; align-items: center; min-height: 44px; font-weight: 600; }
  .actions { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; }
  .bar { background: #f5f7fa; border-top: 1px solid #e4e7eb; margin: 1rem -1rem -1rem; padding: .75rem 1rem; display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; justify-content: space-between; border-radius: 0 0 10px 10px; }
  .bar .sum { font-weight: 700; font-size: 1.1rem; }
  .bar button { flex: 1 1 14rem; }
  ul.plain { list-style: none; padding: 0; margin: 0; } ul.plain li { padding: .5rem 0; border-bottom: 1px solid #e4e7eb; } ul.plain li:last-child { border-bottom: 0; }
  .msg-head { display: flex; flex-wrap: wrap; gap: 0 .5rem; align-items: baseline; } .msg-body { margin: .2rem 0 0; white-space: pre-wrap; overflow-wrap: anywhere; }
  .changes li { padding: .2rem 0; }
  .prewrap { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
  .flush { margin: 0; } .flush-bottom { margin-bottom: 0; } .gap { margin-top: .6rem; }
  .hp { position: absolute; left: -10000px; width: 1px; height: 1px; overflow: hidden; }
  fieldset { border: 1px solid #e4e7eb; border-radius: 8px; padding: .75rem; margin: .75rem 0; min-width: 0; }
  legend { font-weight: 700; padding: 0 .25rem; }
  .item-row { border-bottom: 1px solid #e4e7eb; padding-bottom: .75rem; margin-bottom: .75rem; display: grid; grid-template-columns: minmax(0, 1fr); gap: 0 .75rem; }
  @media (min-width: 640px) { .item-row { grid-template-columns: minmax(0, 3fr) minmax(0, 1fr) minmax(0, 1.4fr) auto; align-items: end; } }
  .item-row .remove { margin-top: .5rem; }
  .summary-list { padding-left: 1.2rem; }
`;
