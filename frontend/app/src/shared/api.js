// The one API client: every request goes through call(), which finds the route in routes.json (checked against
// /openapi.json by tests/unit/test_frontend_contract.py), adds the credentials, retries what is safe to retry,
// and turns every failure into an ApiError with the API's stable `code` (never its human `message`).
import routes from "./routes.json";

export class ApiError extends Error {
  constructor(status, body, retryAfter = null) {
    super((body && body.code) || (status === 0 ? "network" : "unknown"));
    this.status = status;
    this.code = this.message;
    this.details = body && body.details;
    this.retryAfter = retryAfter;      // seconds, from the answer's Retry-After
  }
}

/** A failure worth trying again later: no answer or a timeout (0), 408, 429 and every 5xx. Any other 4xx is
 *  the server's definite no. */
export const retryLater = (status) => status === 0 || status === 408 || status === 429 || status >= 500;

function retryAfterOf(resp) {
  const v = resp.headers.get("Retry-After");
  if (!v) return null;
  const s = Number(v);
  if (Number.isFinite(s)) return Math.max(0, s);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, (at - Date.now()) / 1000);
}

const TIMEOUT_MS = 15000;     // a hall's Wi-Fi that takes the request and never answers is a failure, not a hang
function fetchWithTimeout(url, init) {
  const ctl = typeof AbortController === "function" ? new AbortController() : null;
  const timer = ctl ? setTimeout(() => ctl.abort(), TIMEOUT_MS) : null;
  return fetch(url, ctl ? { ...init, signal: ctl.signal } : init).finally(() => clearTimeout(timer));
}

// The page's <meta name="api">, filled in by the site server or the deployment; empty on a bare build (port 8000).
export function apiBase() {
  const meta = document.querySelector('meta[name="api"]');
  return (meta && meta.getAttribute("content")) || `${location.protocol}//${location.hostname}:8000`;
}

// Idempotency keys from crypto.getRandomValues (everywhere, also in WeChat's browser and over plain http,
// where crypto.randomUUID is missing).
export function newKey() {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

// Who the request acts as: a side's table code, an entry's manage token, the signed-in player ("我的"), or the
// signed-in organiser/staff.
function credentials(as) {
  if (as && as.tableCode !== undefined) return { "X-Table-Code": as.tableCode };
  if (as && as.manageToken !== undefined) return { "X-Manage-Token": as.manageToken };
  if (as && as.playerToken !== undefined) return { "X-Player-Token": as.playerToken };
  const token = localStorage.getItem("organiserToken");
  return token ? { Authorization: `Bearer ${token}` } : {};
}

const RETRYABLE = new Set([0, 502, 503, 504]);

// An answer a page's early script already asked for (early-score.js), taken once and only for the same URL.
function takeEarly(name, url) {
  const early = window.EARLY && window.EARLY[name];
  if (!early || early.url !== url) return null;
  delete window.EARLY[name];
  return early.answer;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function pathOf(name, params = {}) {
  const r = routes[name];
  if (!r) throw new Error(`route not in routes.json: ${name}`);
  return r.path.replace(/{(\w+)}/g, (_, k) => encodeURIComponent(params[k]));
}

/**
 * call("tableView", {params, query, as, body, etag, retries, key, raw}) → data (null for 304 Not Modified);
 * with raw: true the Response itself (a file download, a printable page).
 */
export async function call(name, { params = {}, query, as, body, etag, retries, onEtag, key, raw } = {}) {
  const r = routes[name];
  const qs = query ? Object.entries(query).filter(([, v]) => v !== undefined && v !== null && v !== "") : [];
  const url = apiBase() + pathOf(name, params) + (qs.length ? `?${new URLSearchParams(qs)}` : "");
  const headers = { ...credentials(as) };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (etag) headers["If-None-Match"] = etag;
  // The same key for every try of this call; a page that keeps `key` across taps registers once however often.
  if (r.idempotent) headers["Idempotency-Key"] = key || newKey();
  // GET and the versioned PUT are safe to send twice (a repeated PUT answers version_conflict, never a double).
  const tries = retries ?? (r.method === "GET" || r.method === "PUT" || r.idempotent ? 3 : 1);
  let last;
  const early = r.method === "GET" && !etag ? takeEarly(name, url) : null;
  for (let i = 0; i < tries; i++) {
    if (i) await sleep(400 * 2 ** i);
    let resp;
    try {
      resp = i === 0 && early ? await early
        : await fetchWithTimeout(url, { method: r.method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (e) {
      last = new ApiError(0, null);
      continue;
    }
    if (resp.status === 304) return null;
    if (raw && resp.ok) return resp;
    const type = resp.headers.get("Content-Type") || "";
    const data = type.includes("json") ? await resp.json().catch(() => null) : null;
    if (resp.ok) {
      if (onEtag) onEtag(resp.headers.get("ETag"));
      return data;
    }
    last = new ApiError(resp.status, data, retryAfterOf(resp));
    if (!RETRYABLE.has(resp.status)) break;
  }
  throw last;
}
