// extension-host.js: the dashboard side of the extension bridge. An ES module with no dependencies, served by the API at
// {base_url}/extension-host.js. The dashboard mounts an installed extension's iframe with it and answers the iframe:
//
//   import { mountExtension } from "{base_url}/extension-host.js";
//   mountExtension({ container, iframeUrl, installationId, dashboardToken });
//
// `ready` and `refresh` are answered with a session minted by POST {base_url}/api/v1/installations/{id}/session (or by
// options.getSession / options.sessionUrl); `resize`, `toast`, `navigate` and `destroy` are carried out. A message is
// read only when it comes from the iframe's window AND the origin of its iframeUrl; replies go to that origin only.

const NS = "q2c.extension-bridge";
const VERSION = 1;
const API_BASE = new URL("/api/v1", import.meta.url).href;
const LEVELS = ["info", "success", "warning", "error"];

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

function originOf(url) {
  const u = new URL(url, window.location.href);
  if (u.protocol !== "https:" && u.protocol !== "http:") throw new TypeError("iframeUrl must be an http(s) URL");
  return { href: u.href, origin: u.origin };
}

async function readSession(res) {
  const body = await res.json().catch(() => null);
  if (!res.ok || !isObject(body) || !isObject(body.data)) {
    const message = isObject(body) && isObject(body.error) && typeof body.error.message === "string" ? body.error.message : `HTTP ${res.status}`;
    const error = new Error(message);
    error.status = res.status;
    error.code = isObject(body) && isObject(body.error) ? body.error.code : null;
    throw error;
  }
  return body.data;
}

/**
 * Mounts the extension's iframe in `container` and answers it. Options:
 *   iframeUrl, installationId (required); title (the frame's accessible name);
 *   getSession(): Promise<{ token, context, expiresIn }>  or  sessionUrl (POSTed to, same-origin credentials)  or
 *   dashboardToken (string or function returning one: POST /api/v1/installations/{id}/session with it);
 *   onToast(message, level), onNavigate(route), onDestroy(): replace the default behaviour;
 *   minHeight, maxHeight: bounds for resize (default 120 and 4000 px).
 * Returns { iframe, origin, destroy() }.
 */
export function mountExtension(options) {
  const { container, installationId } = options;
  if (!(container instanceof Element)) throw new TypeError("mountExtension: container must be an element");
  if (typeof installationId !== "string" || !installationId) throw new TypeError("mountExtension: installationId is required");
  const target = originOf(options.iframeUrl);
  const minHeight = options.minHeight ?? 120;
  const maxHeight = options.maxHeight ?? 4000;

  const getSession =
    typeof options.getSession === "function"
      ? options.getSession
      : options.sessionUrl
        ? async () =>
            readSession(await fetch(options.sessionUrl, { method: "POST", credentials: "same-origin", headers: { "content-type": "application/json", accept: "application/json" }, body: "{}", cache: "no-store" }))
        : async () => {
            const t = typeof options.dashboardToken === "function" ? await options.dashboardToken() : options.dashboardToken;
            if (typeof t !== "string" || !t) throw new Error("mountExtension: a dashboardToken, sessionUrl or getSession is required");
            const url = `${API_BASE}/installations/${encodeURIComponent(installationId)}/session`;
            return readSession(await fetch(url, { method: "POST", headers: { authorization: `Bearer ${t}`, "content-type": "application/json", accept: "application/json" }, body: "{}", cache: "no-store" }));
          };

  // A polite live region for toasts the page did not take over.
  let toasts = null;
  if (typeof options.onToast !== "function") {
    toasts = document.createElement("div");
    toasts.className = "extension-toasts";
    toasts.setAttribute("role", "status");
    toasts.setAttribute("aria-live", "polite");
    container.appendChild(toasts);
  }

  const iframe = document.createElement("iframe");
  iframe.title = options.title || "Extension";
  iframe.className = "extension-frame";
  // its own origin, scripts and forms; no top-level navigation (it asks through navigate) and no downloads
  iframe.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox");
  iframe.setAttribute("referrerpolicy", "strict-origin");
  iframe.style.height = `${Math.max(minHeight, options.initialHeight ?? 400)}px`;

  let destroyed = false;
  let last = null; // { session, at }
  let inflight = null;

  function send(payload) {
    if (destroyed || !iframe.contentWindow) return;
    iframe.contentWindow.postMessage({ ...payload, ns: NS, v: VERSION }, target.origin);
  }

  /** A session with at least half its lifetime left is handed out again; otherwise one is minted (one at a time). */
  function session() {
    if (last && Date.now() - last.at < (last.session.expiresIn * 1000) / 2) return Promise.resolve(last.session);
    if (!inflight) {
      inflight = Promise.resolve(getSession())
        .then((s) => {
          if (!isObject(s) || typeof s.token !== "string" || typeof s.expiresIn !== "number") throw new Error("getSession() must resolve to { token, context, expiresIn }");
          last = { session: s, at: Date.now() };
          return s;
        })
        .finally(() => {
          inflight = null;
        });
    }
    return inflight;
  }

  async function answerSession(replyTo) {
    try {
      const s = await session();
      // only what the bridge needs: the token, its context and lifetime
      send({ type: "session", token: s.token, context: s.context, expiresIn: Math.max(1, Math.round(s.expiresIn - (Date.now() - last.at) / 1000)), ...(replyTo ? { replyTo } : {}) });
    } catch (e) {
      send({ type: "error", code: (e && e.code) || "session_unavailable", message: (e && e.message) || "No session", ...(replyTo ? { replyTo } : {}) });
      if (typeof options.onError === "function") options.onError(e);
    }
  }

  function toast(message, level) {
    if (typeof options.onToast === "function") return options.onToast(message, level);
    const item = document.createElement("p");
    item.className = `extension-toast extension-toast-${level}`;
    item.textContent = message; // text only: an extension never injects markup into the dashboard
    toasts.appendChild(item);
    setTimeout(() => item.remove(), 8000);
  }

  function navigate(route) {
    if (typeof options.onNavigate === "function") return options.onNavigate(route);
    // default: this dashboard's own pages only
    const url = new URL(route, window.location.origin);
    if (url.origin === window.location.origin) window.location.assign(url.href);
  }

  function onMessage(event) {
    if (destroyed || event.source !== iframe.contentWindow || event.origin !== target.origin) return;
    const m = event.data;
    if (!isObject(m) || m.ns !== NS || m.v !== VERSION) return;
    switch (m.type) {
      case "ready":
        return void answerSession(null);
      case "refresh":
        return void answerSession(typeof m.id === "string" ? m.id : null);
      case "resize": {
        const h = Number(m.height);
        if (Number.isFinite(h)) iframe.style.height = `${Math.min(maxHeight, Math.max(minHeight, Math.round(h)))}px`;
        return;
      }
      case "toast":
        if (typeof m.message === "string" && m.message) toast(m.message.slice(0, 500), LEVELS.includes(m.level) ? m.level : "info");
        return;
      case "navigate":
        if (typeof m.route === "string" && m.route.startsWith("/") && !m.route.startsWith("//")) navigate(m.route);
        return;
      case "destroy":
        return void destroy();
      default:
        return; // unknown message types are ignored
    }
  }

  function destroy() {
    if (destroyed) return;
    destroyed = true;
    window.removeEventListener("message", onMessage);
    iframe.remove();
    if (typeof options.onDestroy === "function") options.onDestroy();
  }

  // listen before the frame loads, so its first `ready` is heard
  window.addEventListener("message", onMessage);
  iframe.src = target.href;
  container.appendChild(iframe);
  return { iframe, origin: target.origin, destroy };
}
