(function () {
  var A = window.App, t = A.t, el = A.el;
  var id = A.qs("id");
  var fromHash = new URLSearchParams(location.hash.slice(1)).get("token");
  if (fromHash) { localStorage.setItem("manage-" + id, fromHash); history.replaceState(null, "", location.pathname + location.search); }
  var token = localStorage.getItem("manage-" + id);
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
    document.getElementById("pay").hidden = entry.status !== "pending_payment";
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
