(function () {
  var A = window.App, t = A.t, el = A.el;
  var id = A.qs("id"), regId = A.qs("reg");
  // The link's token (in the fragment: never sent to a server) is kept under this entry's or registration's
  // own key, so the link works in any browser it is opened in; then it leaves the address bar.
  var store = regId ? "manage-reg-" + regId : "manage-" + id;
  var fromHash = new URLSearchParams(location.hash.slice(1)).get("token");
  if (fromHash && (id || regId)) { localStorage.setItem(store, fromHash); history.replaceState(null, "", location.pathname + location.search); }
  var token = id ? localStorage.getItem(store) : null;
  var entry = null;
  function headers() { return {"X-Manage-Token": token || "", noAuth: true}; }
  function render() {
    if (!entry) return;
    document.getElementById("entry").hidden = false;
    document.getElementById("name").textContent = entry.name;
    document.getElementById("status").textContent = t("status_" + entry.status);
    document.getElementById("status").className = "tag " + entry.status;
    document.getElementById("position").textContent = entry.waitlist_position ? t("position", {n: entry.waitlist_position}) : "";
    document.getElementById("payment").textContent = entry.status === "pending_payment" ? t("pay_desk", {amount: A.money(entry.amount_due - entry.amount_paid, entry.currency)}) : "";
    document.getElementById("pay").hidden = entry.status !== "pending_payment" || !entry.online_payment;   // no button for a feature that is off
    var notes = document.getElementById("notices"); notes.innerHTML = "";
    entry.notices.forEach(function (n) { notes.appendChild(el("li", {text: n.replace(/^hold_released: /, "")})); });
    document.getElementById("club").value = entry.club;
    var box = document.getElementById("members"); box.innerHTML = "";
    entry.members.forEach(function (m, i) {
      box.appendChild(el("fieldset", {"class": "card", style: "padding:8px"}, [
        el("legend", {text: t("member") + " " + (i + 1)}),
        el("label", {"for": "mn" + i, text: t("your_name")}), el("input", {id: "mn" + i, "class": "m-name", value: m.name}),
        el("label", {"for": "mp" + i, text: t("phone")}), el("input", {id: "mp" + i, "class": "m-phone", type: "tel", value: m.phone || ""})]));
    });
    document.getElementById("until").textContent = entry.can_edit_until ? new Date(entry.can_edit_until).toLocaleString() : "—";
    document.getElementById("refund").textContent = entry.refund_rule || t("free");
    var closed = ["cancelled", "withdrawn", "merged"].indexOf(entry.status) >= 0;
    document.getElementById("edit").hidden = closed;
    document.getElementById("cancel").hidden = closed;
  }
  window.onLangChange = render;
  async function load() {
    try { entry = await A.api("GET", "/entries/" + id, undefined, headers()); render(); }
    catch (e) { A.showError(document.getElementById("error"), e); }
  }
  // ---------------------------------------------------------------- a day's registration (several events)
  var reg = null, regToken = null;
  function regHeaders() { return {"X-Manage-Token": regToken || "", noAuth: true}; }
  function renderReg() {
    if (!reg) return;
    var $ = function (x) { return document.getElementById(x); };
    $("reg").hidden = false;
    $("reg-name").textContent = reg.contact.name + " · " + t("my_day");
    $("reg-pay").textContent = reg.amount_due ? t("paid_total") + ": " + A.money(reg.amount_paid, reg.currency) + " / " + A.money(reg.amount_due, reg.currency) : "";
    var list = $("reg-items"); list.innerHTML = "";
    reg.items.forEach(function (i) {
      var e = i.entry, parts = [el("h3", {text: i.event_name}), el("p", {}, [el("span", {"class": "tag " + e.status, text: t("status_" + e.status)}),
        e.waitlist_position ? " " + t("position", {n: e.waitlist_position}) : ""])];
      if (i.now && i.now.table) parts.push(el("p", {"class": "now"}, [el("b", {text: t("sit_now", {r: i.now.round, t: i.now.table, s: i.now.seats.join("")})}),
        el("span", {text: " · " + t("opponents") + ": " + i.now.opponents.join("、")})]));
      if (i.results.length) parts.push(el("ol", {"class": "muted"}, i.results.map(function (r) {
        return el("li", {text: t("round", {n: r.round}) + (r.bye ? " · " + t("bye") : " · " + r.opponents.join("、") +
          (r.points ? " · " + Object.keys(r.points).map(function (k) { return t("pt_" + k) + " " + r.points[k]; }).join(" · ") : ""))});
      })));
      parts.push(el("p", {"class": "muted", text: t("refund_rule") + ": " + (i.refund_rule || t("free"))}));
      if (e.status === "pending_payment" && e.online_payment) parts.push(el("button", {type: "button", "class": "small", text: t("pay_online"), onclick: function () {
        // a promoted item pays on its own, with the registration's link
        A.api("POST", "/entries/" + e.id + "/checkout", undefined, regHeaders()).then(function (r) { location.href = r.checkout_url; },
          function (x) { A.showError($("error"), x); });
      }}));
      if (["cancelled", "withdrawn", "merged"].indexOf(e.status) < 0) parts.push(el("button", {type: "button", "class": "secondary small", text: t("cancel_item"), onclick: function () {
        if (!confirm(t("cancel_confirm"))) return;
        A.api("DELETE", "/registrations/" + regId + "/items/" + e.id, undefined, regHeaders()).then(function (r) { reg = r; renderReg(); }, function (x) { A.showError($("error"), x); });
      }}));
      list.appendChild(el("div", {"class": "card", "data-item": i.event_id}, parts));
    });
    var tb = $("receipt-table"); tb.innerHTML = "";
    tb.appendChild(el("tr", {}, [el("th", {text: t("events")}), el("th", {text: t("status")}), el("th", {"class": "n", text: t("fee")}),
      el("th", {"class": "n", text: t("paid_total")})]));
    reg.items.forEach(function (i) { tb.appendChild(el("tr", {}, [el("td", {text: i.event_name}), el("td", {text: t("status_" + i.entry.status)}),
      el("td", {"class": "n", text: A.money(i.amount, reg.currency)}), el("td", {"class": "n", text: A.money(i.entry.amount_paid, reg.currency)})])); });
    tb.appendChild(el("tr", {}, [el("th", {text: t("total")}), el("td"), el("th", {"class": "n", text: A.money(reg.amount_due, reg.currency)}),
      el("th", {"class": "n", text: A.money(reg.amount_paid, reg.currency)})]));
  }
  async function loadReg() {
    try { reg = await A.api("GET", "/registrations/" + regId, undefined, regHeaders()); renderReg(); }
    catch (e) { A.showError(document.getElementById("error"), e); }
  }
  if (regId) {
    regToken = localStorage.getItem(store);
    window.onLangChange = renderReg;
    document.addEventListener("DOMContentLoaded", loadReg);
    return;
  }
  document.addEventListener("DOMContentLoaded", function () {
    load();
    document.getElementById("edit").addEventListener("submit", async function (ev) {
      ev.preventDefault();
      var members = [];
      document.querySelectorAll("#members fieldset").forEach(function (f) {
        var m = {name: f.querySelector(".m-name").value.trim()}, p = f.querySelector(".m-phone").value.trim();
        if (p) m.phone = p;
        members.push(m);
      });
      try {
        entry = await A.busy(document.getElementById("save"), function () {
          return A.api("PATCH", "/entries/" + id, {club: document.getElementById("club").value.trim(), members: members, version: entry.version}, headers());
        });
        document.getElementById("error").hidden = true;   // no old error beside 已保存
        render(); A.showNotice(document.getElementById("notice"), t("saved"));
      } catch (e) { A.showError(document.getElementById("error"), e); }
    });
    document.getElementById("cancel").addEventListener("click", async function () {
      if (!confirm(t("cancel_confirm"))) return;
      try { entry = await A.api("DELETE", "/entries/" + id, undefined, headers()); render(); }
      catch (e) { A.showError(document.getElementById("error"), e); }
    });
    document.getElementById("pay").addEventListener("click", async function () {
      try { var r = await A.api("POST", "/entries/" + id + "/checkout", undefined, headers()); location.href = r.checkout_url; }
      catch (e) { A.showError(document.getElementById("error"), e); }
    });
  });
})();
