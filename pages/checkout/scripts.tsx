/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// The checkout page's scripts: the merchant's application scripts (each from its content-addressed copy, with
// `integrity`: the browser refuses bytes that do not match) and, before them, the page's own reporter, which beacons
// each script's fate to POST /api/v1/checkout-sessions/{id}/script-beacons; and the page's small client script.
import type { PageScript } from "../../src/application-scripts/scripts.service";

/** The application scripts as <head> and end-of-<body> elements; nothing when there are none. */
export function applicationScripts(nonce: string, sessionId: string, scripts: PageScript[]) {
  if (scripts.length === 0) return { head: null, end: null };
  const placed = (p: PageScript["placement"]) =>
    scripts.filter((x) => x.placement === p).map((x) => <script src={x.url} integrity={x.integrity} crossOrigin="anonymous" data-application-script={x.id} />);
  return {
    head: (
      <>
        <script nonce={nonce} data-session={sessionId} dangerouslySetInnerHTML={{ __html: BEACON_SCRIPT }} />
        {placed("checkout_head")}
      </>
    ),
    end: <>{placed("checkout_body")}</>,
  };
}

// Runs in <head> before any application script. Capture listeners see each script element's load and error; an
// error on a script whose response arrived (a resource-timing entry with a 2xx status) is the integrity check
// refusing its bytes. Runtime errors thrown by a script, and CSP refusals of scripts, are reported too.
const BEACON_SCRIPT = `(() => {
  const url = "/api/v1/checkout-sessions/" + encodeURIComponent(document.currentScript.dataset.session) + "/script-beacons";
  const sent = new Set();
  const send = (body) => {
    const key = JSON.stringify(body);
    if (sent.has(key)) return;
    sent.add(key);
    fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: key, keepalive: true }).catch(() => {});
  };
  const tagOf = (el) => (el && el.tagName === "SCRIPT" && el.dataset && el.dataset.applicationScript ? el : null);
  const byUrl = (u) => (u ? [...document.querySelectorAll("script[data-application-script]")].find((s) => s.src === u) || null : null);
  document.addEventListener("load", (e) => { const s = tagOf(e.target); if (s) send({ type: "loaded", scriptId: s.dataset.applicationScript }); }, true);
  window.addEventListener("error", (e) => {
    const s = tagOf(e.target);
    if (s) {
      const entry = performance.getEntriesByName(s.src).pop();
      const arrived = entry && entry.responseStatus >= 200 && entry.responseStatus < 300;
      send(arrived ? { type: "blocked", reason: "integrity_mismatch", scriptId: s.dataset.applicationScript } : { type: "error", reason: "load_failed", scriptId: s.dataset.applicationScript });
      return;
    }
    const from = byUrl(e.filename);
    if (from) send({ type: "error", reason: "runtime_error", scriptId: from.dataset.applicationScript });
  }, true);
  document.addEventListener("securitypolicyviolation", (e) => {
    if (!/^script-src/.test(e.effectiveDirective)) return;
    const from = byUrl(e.sourceFile);
    const body = { type: "blocked", reason: "csp_violation", blockedUri: String(e.blockedURI || "").slice(0, 2048), violatedDirective: e.effectiveDirective };
    if (from) body.scriptId = from.dataset.applicationScript;
    if (body.scriptId || body.blockedUri) send(body);
  });
})();`;

// The page works without it (a plain form POST). With it: only the chosen method's fields show, the button says what
// it will do for that method, and a second click cannot submit the form twice.
export const CLIENT_SCRIPT = `
const form = document.getElementById("pay");
const button = document.getElementById("submit");
const sync = () => {
  const m = form.querySelector("input[name=paymentMethod]:checked");
  const method = m ? m.value : button.dataset.method;
  for (const el of form.querySelectorAll("[data-method-fields]")) el.hidden = el.dataset.methodFields !== method;
  const label = button.getAttribute("data-label-" + method);
  if (label) button.textContent = label;
};
form.addEventListener("change", sync); sync();
form.addEventListener("submit", (e) => {
  if (form.dataset.sent) { e.preventDefault(); return; }
  form.dataset.sent = "1";
  button.disabled = true;
  button.textContent = "Processing…";
});`;
