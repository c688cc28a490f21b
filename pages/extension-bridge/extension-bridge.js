// extension-bridge.js: the iframe side of the extension bridge. An ES module with no dependencies, served by the API
// at {base_url}/extension-bridge.js. An installed extension's iframe page imports it and calls
//
//   import { createBridge } from "{base_url}/extension-bridge.js";
//   const bridge = createBridge({ targetOrigin: "https://dashboard.example.com" });
//   const context = await bridge.ready;                  // user, workspace, application, environment, scopes, ...
//   const { data } = await bridge.api.get("/orders");   // {base_url}/api/v1/orders with the session token
//
// Safeguards: messages go only to the locked targetOrigin (never "*"); a message is accepted only when it comes from
// that origin AND from the parent window; every envelope carries a namespace and version; requests to the host have
// ids and time out; the session token is refreshed before it expires; context fields the bridge does not know are
// dropped. The API origin is where this module was loaded from.

const NS = "q2c.extension-bridge";
const VERSION = 1;
const API_BASE = new URL("/api/v1", import.meta.url).href;
const REQUEST_TIMEOUT_MS = 10000;
const TOAST_LEVELS = ["info", "success", "warning", "error"];

/** An API answer outside 2xx: status, the error code and message of the { error } body. */
export class BridgeApiError extends Error {
  constructor(status, body) {
    const err = body && typeof body === "object" && body.error && typeof body.error === "object" ? body.error : {};
    super(typeof err.message === "string" ? err.message : `HTTP ${status}`);
    this.name = "BridgeApiError";
    this.status = status;
    this.code = typeof err.code === "string" ? err.code : null;
    this.details = err.details ?? null;
    this.body = body;
  }
}

function exactOrigin(value) {
  if (typeof value !== "string" || value === "*") throw new TypeError("createBridge: targetOrigin must be the dashboard's exact origin, e.g. https://dashboard.example.com");
  let url;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`createBridge: targetOrigin is not a URL: ${value}`);
  }
  if ((url.protocol !== "https:" && url.protocol !== "http:") || url.origin !== value) {
    throw new TypeError(`createBridge: targetOrigin must be an origin only (scheme, host, port), got ${value}`);
  }
  return value;
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const str = (v) => (typeof v === "string" ? v : null);

/** The context fields the bridge knows; anything else the host sends is ignored. */
function pickContext(c) {
  const o = (v) => (isObject(v) ? v : {});
  const user = o(c.user);
  const workspace = o(c.workspace);
  const application = o(c.application);
  const env = o(c.environment);
  return Object.freeze({
    user: Object.freeze({ id: str(user.id), email: str(user.email) }),
    workspace: Object.freeze({ id: str(workspace.id), slug: str(workspace.slug) }),
    application: Object.freeze({ id: str(application.id), slug: str(application.slug) }),
    environment: Object.freeze({
      environmentId: str(env.environmentId),
      environmentSlug: str(env.environmentSlug),
      environmentKind: str(env.environmentKind),
      providerEnvironment: str(env.providerEnvironment),
    }),
    installationId: str(c.installationId),
    extensionId: str(c.extensionId),
    version: str(c.version),
    role: str(c.role),
    scopes: Object.freeze(Array.isArray(c.scopes) ? c.scopes.filter((s) => typeof s === "string") : []),
  });
}

/**
 * Creates the bridge and sends `ready` to the dashboard.
 * options.targetOrigin (required): the dashboard's exact origin; the only origin messages are sent to or taken from.
 * options.onSession(context): called for every session received (the first and each refresh).
 * options.refreshMarginSeconds: refresh this long before expiry (default: a fifth of the lifetime, at most 60 s).
 */
export function createBridge(options = {}) {
  const targetOrigin = exactOrigin(options.targetOrigin);
  const host = window.parent;
  if (!host || host === window) throw new Error("createBridge: this page is not inside the dashboard's frame");

  let session = null; // { token, context, expiresAt (ms, this page's clock) }
  let destroyed = false;
  let refreshTimer = null;
  let readyTimer = null;
  let refreshing = null;
  let seq = 0;
  const pending = new Map(); // request id -> { resolve, reject, timer }
  const sessionListeners = new Set();
  if (typeof options.onSession === "function") sessionListeners.add(options.onSession);

  let resolveReady;
  let rejectReady;
  const ready = new Promise((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  ready.catch(() => undefined); // a destroyed bridge rejects it; nobody has to listen

  function post(type, payload = {}) {
    if (destroyed) return;
    host.postMessage({ ...payload, ns: NS, v: VERSION, type }, targetOrigin);
  }

  function request(type, payload = {}) {
    if (destroyed) return Promise.reject(new Error("The bridge was destroyed"));
    const id = `${Date.now().toString(36)}-${++seq}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`The dashboard did not answer ${type} in time`));
      }, REQUEST_TIMEOUT_MS);
      pending.set(id, { resolve, reject, timer });
      post(type, { ...payload, id });
    });
  }

  function settle(id, error, value) {
    const p = pending.get(id);
    if (!p) return;
    pending.delete(id);
    clearTimeout(p.timer);
    if (error) p.reject(error);
    else p.resolve(value);
  }

  function scheduleRefresh(lifetimeMs) {
    clearTimeout(refreshTimer);
    const margin = options.refreshMarginSeconds !== undefined ? options.refreshMarginSeconds * 1000 : Math.min(60000, lifetimeMs / 5);
    refreshTimer = setTimeout(() => void refresh().catch(() => undefined), Math.max(0, lifetimeMs - margin));
  }

  function acceptSession(m) {
    if (typeof m.token !== "string" || !m.token || !isObject(m.context) || typeof m.expiresIn !== "number" || !(m.expiresIn > 0)) return;
    if (session && m.token === session.token) {
      // the same session again (the host answered a repeated `ready`): nothing new
      if (typeof m.replyTo === "string") settle(m.replyTo, null, session);
      return;
    }
    const lifetimeMs = m.expiresIn * 1000;
    session = { token: m.token, context: pickContext(m.context), expiresAt: Date.now() + lifetimeMs };
    clearInterval(readyTimer);
    readyTimer = null;
    scheduleRefresh(lifetimeMs);
    if (typeof m.replyTo === "string") settle(m.replyTo, null, session);
    resolveReady(session.context);
    for (const listener of sessionListeners) {
      try {
        listener(session.context);
      } catch (e) {
        console.error(e);
      }
    }
  }

  function onMessage(event) {
    // Only the dashboard: its exact origin, and the window this frame sits in. Anything else is not even read.
    if (destroyed || event.origin !== targetOrigin || event.source !== host) return;
    const m = event.data;
    if (!isObject(m) || m.ns !== NS || m.v !== VERSION) return;
    if (m.type === "session") acceptSession(m);
    else if (m.type === "error" && typeof m.replyTo === "string") {
      settle(m.replyTo, new Error(typeof m.message === "string" ? m.message : "The dashboard refused the request"));
    }
  }
  window.addEventListener("message", onMessage);

  /** Asks the dashboard for a fresh session (one request at a time). */
  function refresh() {
    if (!refreshing) {
      refreshing = request("refresh").finally(() => {
        refreshing = null;
      });
    }
    return refreshing;
  }

  /** A token with at least a few seconds left: waits for the first session, refreshes an expiring one. */
  async function token() {
    await ready;
    if (session.expiresAt - Date.now() < 5000) await refresh();
    return session.token;
  }

  function apiUrl(path) {
    if (typeof path !== "string" || !path.startsWith("/") || path.startsWith("//")) {
      throw new TypeError("api paths start with a single '/', relative to {base_url}/api/v1, e.g. '/orders'");
    }
    const rel = path.startsWith("/api/v1/") ? path.slice("/api/v1".length) : path;
    return API_BASE + rel;
  }

  async function call(method, path, body, opts = {}) {
    const url = apiUrl(path);
    const send = async (t) => {
      const headers = { authorization: `Bearer ${t}`, accept: "application/json" };
      if (body !== undefined) headers["content-type"] = "application/json";
      if (typeof opts.idempotencyKey === "string") headers["idempotency-key"] = opts.idempotencyKey;
      return fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: "omit", mode: "cors", cache: "no-store" });
    };
    let res = await send(await token());
    if (res.status === 401 && !destroyed) {
      // the token may have expired in flight or been revoked: one fresh session, one retry
      await refresh();
      res = await send(session.token);
    }
    const text = await res.text();
    let parsed;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = text;
    }
    if (!res.ok) throw new BridgeApiError(res.status, parsed);
    return parsed;
  }

  const bridge = {
    /** resolves with the first session's context */
    ready,
    /** the current context (null before the first session) */
    get context() {
      return session ? session.context : null;
    },
    /** the current session token, refreshed when close to expiry: for your own backend, which verifies it with the JWKS */
    getToken: token,
    /** asks the dashboard for a new session now */
    refresh: () => refresh().then(() => session.context),
    /** calls listener(context) on every new session; returns an unsubscribe function */
    onSession(listener) {
      sessionListeners.add(listener);
      return () => sessionListeners.delete(listener);
    },
    api: {
      get: (path, opts) => call("GET", path, undefined, opts),
      post: (path, body = {}, opts) => call("POST", path, body, opts),
    },
    /** asks the dashboard to make the frame this many CSS pixels tall */
    resize(height) {
      const h = Math.round(Number(height));
      if (!Number.isFinite(h) || h < 0) throw new TypeError("resize(height) takes a number of pixels");
      post("resize", { height: h });
    },
    /** a short message in the dashboard; level: info, success, warning or error */
    toast(message, level = "info") {
      if (typeof message !== "string" || !message) throw new TypeError("toast(message, level) takes a non-empty string");
      post("toast", { message: message.slice(0, 500), level: TOAST_LEVELS.includes(level) ? level : "info" });
    },
    /** asks the dashboard to open one of its own pages (a path such as /orders/ord_123) */
    navigate(route) {
      if (typeof route !== "string" || !route.startsWith("/") || route.startsWith("//")) throw new TypeError("navigate(route) takes a dashboard path starting with '/'");
      post("navigate", { route });
    },
    /** closes the extension: tells the dashboard, then stops listening and drops the session */
    destroy() {
      if (destroyed) return;
      post("destroy");
      destroyed = true;
      window.removeEventListener("message", onMessage);
      clearTimeout(refreshTimer);
      clearInterval(readyTimer);
      for (const [id] of pending) settle(id, new Error("The bridge was destroyed"));
      session = null;
      rejectReady(new Error("The bridge was destroyed"));
    },
  };

  // The dashboard may not be listening yet: repeat `ready` until a session arrives (10 times, a second apart).
  post("ready");
  let tries = 1;
  readyTimer = setInterval(() => {
    if (session || destroyed || tries >= 10) return void clearInterval(readyTimer);
    tries++;
    post("ready");
  }, 1000);

  return bridge;
}
