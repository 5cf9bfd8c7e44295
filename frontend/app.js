/* Shared helpers: the API client, errors by code, money and time formatting, the language switch. */
(function () {
  var t = window.I18N.t;
  function qs(name) { return new URLSearchParams(location.search).get(name); }
  // An Idempotency-Key (the server also derives the manage token from it: it must be unguessable).
  // crypto.getRandomValues works on plain HTTP too (a venue laptop); crypto.randomUUID needs a secure context.
  function randomKey() {
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  }
  function el(tag, attrs, children) {
    var n = document.createElement(tag);
    for (var k in attrs || {}) {
      if (k === "text") n.textContent = attrs[k];
      else if (k === "html") n.innerHTML = attrs[k];
      else if (k.slice(0, 2) === "on") n.addEventListener(k.slice(2), attrs[k]);
      else if (attrs[k] !== null && attrs[k] !== undefined && attrs[k] !== false) n.setAttribute(k, attrs[k] === true ? "" : attrs[k]);
    }
    (children || []).forEach(function (c) { if (c !== null && c !== undefined) n.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return n;
  }
  function ApiError(status, body) { this.status = status; this.code = body && body.code; this.body = body; }
  async function api(method, path, body, headers) {
    var h = Object.assign({"Content-Type": "application/json"}, headers || {});
    var token = localStorage.getItem("organiserToken");
    if (token && !h["X-Table-Code"] && !h["X-Manage-Token"] && !h.noAuth) h.Authorization = "Bearer " + token;
    delete h.noAuth;
    var resp;
    try {
      resp = await fetch(window.CONFIG.api + path, {method: method, headers: h, body: body === undefined ? undefined : JSON.stringify(body)});
    } catch (e) { throw new ApiError(0, {code: "network", message: t("err_network")}); }
    var type = resp.headers.get("Content-Type") || "";
    var data = type.indexOf("json") >= 0 ? await resp.json() : await resp.text();
    if (!resp.ok) throw new ApiError(resp.status, data);
    return data;
  }
  function errorText(err) {
    if (!err || !err.body) return String(err);
    var key = "e_" + err.code;
    var head = t(key) !== key ? t(key) : "";
    var msg = err.body.message || "";
    if (Array.isArray(err.body.details) && err.body.details.length && err.body.details[0].label_zh) {
      // field by field, as people say them, in the page's language (never a model path)
      var zh = window.I18N.lang() === "zh";
      return t("e_fix") + " " + err.body.details.map(function (d) {
        return (zh ? d.label_zh + "：" + d.message_zh : d.label_en + ": " + d.message);
      }).join(zh ? "；" : "; ");
    }
    var details = Array.isArray(err.body.details) ? err.body.details.map(function (d) { return d.field + ": " + d.message; }).join("; ") : "";
    return [head, msg, details].filter(Boolean).join(" — ");
  }
  function showError(box, err) { box.hidden = false; box.className = "error"; box.setAttribute("role", "alert"); box.textContent = errorText(err); }
  function showNotice(box, text) { box.hidden = false; box.className = "notice"; box.setAttribute("role", "status"); box.textContent = text; }
  function money(minor, currency) {
    var exp = currency === "JPY" || currency === "KRW" ? 0 : 2;
    return (minor / Math.pow(10, exp)).toFixed(exp) + " " + currency;
  }
  function time(iso) {   // the device's clock is the hall's: show hours and minutes in local time
    if (!iso) return "";
    var d = new Date(iso), pad = function (x) { return (x < 10 ? "0" : "") + x; };
    return pad(d.getHours()) + ":" + pad(d.getMinutes());
  }
  async function busy(button, fn) {
    button.disabled = true; button.classList.add("loading");
    try { return await fn(); } finally { button.disabled = false; button.classList.remove("loading"); }
  }
  function langButton() {
    var b = document.getElementById("lang");
    if (b) b.addEventListener("click", function () { window.I18N.setLang(window.I18N.lang() === "zh" ? "en" : "zh"); });
  }
  document.addEventListener("DOMContentLoaded", function () { window.I18N.apply(); langButton(); });
  window.App = {qs: qs, randomKey: randomKey, el: el, api: api, errorText: errorText, showError: showError, showNotice: showNotice, money: money, time: time, busy: busy, t: t};
})();
