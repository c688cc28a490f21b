// The hosted checkout's stylesheet (Shell sets --brand, --on-brand and --brand-text from the application's colour).
// Mobile first: one column with the order summary (compact) above the form; from 900 px the summary sits beside the
// form. Inputs are 16 px (no zoom on focus) and every control is at least 44 px tall.
export const CHECKOUT_CSS = () => `
  * { box-sizing: border-box; }
  body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1f2933; background: #f5f7fa; line-height: 1.45; font-size: 1rem; }
  header { display: flex; align-items: center; gap: .75rem; border-top: 4px solid var(--brand); background: #fff; padding: .75rem 1rem; border-bottom: 1px solid #e4e7eb; }
  header img { max-height: 40px; max-width: 160px; }
  main { max-width: 1080px; margin: 0 auto; padding: 1rem; }
  h1 { font-size: 1.5rem; margin: .25rem 0 .25rem; } h2 { font-size: 1.15rem; margin: 0 0 .75rem; }
  a { color: var(--brand-text); } a:focus, input:focus, select:focus, button:focus, summary:focus { outline: 3px solid #2563eb; outline-offset: 2px; }
  .muted { color: #52606d; font-size: .95rem; }
  .badge { display: inline-block; background: #fff3c4; color: #5c4813; border: 1px solid #f0b429; border-radius: 4px; padding: .15rem .5rem; font-size: .9rem; margin: .25rem 0; }
  .refs { display: flex; flex-wrap: wrap; gap: .25rem 1.25rem; margin: .25rem 0 0; padding: 0; list-style: none; color: #3e4c59; }
  .refs strong { color: #1f2933; }
  .layout { display: grid; grid-template-columns: minmax(0, 1fr); gap: 1rem; margin-top: 1rem; }
  @media (min-width: 900px) { .layout { grid-template-columns: minmax(0, 5fr) minmax(0, 6fr); gap: 2rem; align-items: start; } .summary { position: sticky; top: 1rem; } }
  .card { background: #fff; border: 1px solid #e4e7eb; border-radius: 8px; padding: 1.25rem; }
  table { width: 100%; border-collapse: collapse; } th, td { padding: .45rem .25rem; text-align: left; vertical-align: top; border-bottom: 1px solid #e4e7eb; }
  thead th { font-size: .9rem; color: #52606d; font-weight: 600; }
  .num { text-align: right; white-space: nowrap; } .qty { color: #52606d; }
  tbody.totals td, tbody.totals th { border: 0; padding: .25rem; } tr.grand th, tr.grand td { font-size: 1.15rem; font-weight: 700; border-top: 2px solid #cbd2d9; padding-top: .5rem; }
  tr.due td, tr.due th { color: #1f2933; font-weight: 600; }
  fieldset { border: 0; padding: 0; margin: 0 0 1.25rem; min-width: 0; } legend { font-weight: 700; font-size: 1.1rem; padding: 0; margin-bottom: .5rem; }
  .field { margin: 0 0 .85rem; } .field label { display: block; font-weight: 500; margin-bottom: .25rem; }
  .row { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0 .75rem; } @media (min-width: 520px) { .row { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); } }
  input[type=text], input[type=email], select { width: 100%; min-height: 44px; padding: .55rem .65rem; border: 1px solid #7b8794; border-radius: 6px; font: inherit; font-size: 1rem; background: #fff; color: #1f2933; }
  input[aria-invalid=true], select[aria-invalid=true] { border: 2px solid #ab091e; }
  .field-error { color: #ab091e; margin: .3rem 0 0; font-size: .95rem; font-weight: 500; }
  .choice { display: flex; align-items: center; gap: .65rem; min-height: 44px; padding: .5rem .75rem; border: 1px solid #cbd2d9; border-radius: 6px; background: #fff; margin: 0 0 .5rem; cursor: pointer; font-weight: 500; }
  .choice input { width: 1.25rem; height: 1.25rem; margin: 0; flex: none; accent-color: var(--brand); }
  .choices .choice:has(input:checked) { border: 2px solid var(--brand-text); }
  #billing:has(#same:checked) #billing-fields { display: none; }
  .method { border-left: 3px solid #e4e7eb; padding: .25rem 0 .25rem .85rem; margin: .25rem 0 1rem; }
  .terms { background: #f5f7fa; border: 1px solid #e4e7eb; border-radius: 6px; padding: .75rem; margin: 0 0 .75rem; }
  button { display: block; width: 100%; min-height: 48px; background: var(--brand); color: var(--on-brand); border: 0; padding: .75rem 1.25rem; border-radius: 6px; font-size: 1.05rem; font-weight: 600; cursor: pointer; }
  button[disabled] { opacity: .7; cursor: progress; }
  .alert { border-left: 4px solid #ab091e; background: #fde8e8; padding: .75rem; margin: 0 0 1rem; }
  .alert ul { margin: .25rem 0 0; padding-left: 1.25rem; } .alert a { color: #7a0614; }
  .ok { border-left: 4px solid #0e7c3a; background: #eef6f0; padding: .75rem; margin: 0 0 1rem; }
  .cancel { display: inline-block; min-height: 44px; padding: .65rem 0; }
  .actions { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; margin-top: 1rem; }
  .button { display: inline-flex; align-items: center; min-height: 48px; background: var(--brand); color: var(--on-brand); border-radius: 6px; padding: .65rem 1.25rem; text-decoration: none; font-weight: 600; }
  dl.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .35rem 1rem; margin: 0; } dl.facts dt { color: #52606d; } dl.facts dd { margin: 0; font-weight: 500; overflow-wrap: anywhere; }
  address { font-style: normal; } h2.spaced { margin-top: 1.25rem; } #payments { margin: 0; padding-left: 1.25rem; } #payments li { margin: .25rem 0; }
  @media (max-width: 899px) { .summary table { font-size: .95rem; } .summary h2 { font-size: 1rem; } .summary.card { padding: .85rem 1rem; } }
  @media (max-width: 520px) { main { padding: .5rem; } .card { padding: 1rem .85rem; } h1 { font-size: 1.3rem; } }
`;
