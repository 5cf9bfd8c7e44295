/* One form for the day (issue 15): tick the events, fill each roster (the contact is member 1 everywhere),
   see one total, pay once. */
(function () {
  var A = window.App, t = A.t, el = A.el;
  var tid = A.qs("t"), data = null;
  var box = function (id) { return document.getElementById(id); };
  function size(e) { return e.entry.size || 1; }
  function fee(e) { return e.fee.per === "person" ? e.fee.amount * size(e) : e.fee.amount; }
  function render() {
    if (!data) return;
    box("t-name").textContent = data.name;
    box("t-meta").textContent = [data.venue, data.starts_on].filter(Boolean).join(" · ");
    var list = box("events"), kept = {};
    list.querySelectorAll("[data-event]").forEach(function (c) { kept[c.getAttribute("data-event")] = c; });
    list.innerHTML = "";
    data.events.filter(function (e) { return e.registration_state === "open"; }).forEach(function (e) {
      var card = kept[e.id];
      if (!card) {
        var pick = el("input", {type: "checkbox", "class": "pick", id: "pick-" + e.id});
        var roster = el("div", {"class": "roster", hidden: true});
        if (size(e) > 1) roster.appendChild(el("div", {}, [el("label", {"for": "team-" + e.id, text: t("team_name")}), el("input", {id: "team-" + e.id, "class": "team"})]));
        for (var i = 1; i < size(e); i++) {   // member 1 is the contact; the others are asked once per event
          roster.appendChild(el("div", {"class": "row"}, [
            el("div", {}, [el("label", {"for": "m-" + e.id + "-" + i, text: t("member") + " " + (i + 1) + " · " + t("your_name")}),
              el("input", {id: "m-" + e.id + "-" + i, "class": "m-name"})]),
            el("div", {}, [el("label", {"for": "p-" + e.id + "-" + i, text: t("phone")}),
              el("input", {id: "p-" + e.id + "-" + i, "class": "m-phone", type: "tel", inputmode: "tel"})])]));
        }
        pick.addEventListener("change", function () { roster.hidden = !pick.checked; copyPartners(e); total(); });
        card = el("div", {"class": "card pick-card", "data-event": e.id}, [
          el("label", {"class": "check", "for": "pick-" + e.id}, [pick, el("b", {text: " " + e.name})]),
          el("p", {"class": "muted event-meta"}), roster]);
      }
      card.querySelector(".event-meta").textContent = (fee(e) ? A.money(fee(e), data.currency) : t("free")) + " · " +
        t("places_left") + ": " + e.places_left + (e.closes_at_local ? " · " + t("deadline") + ": " + e.closes_at_local : "");
      list.appendChild(card);
    });
    box("pay-how").textContent = data.online_payment ? t("pay_online_after") : t("pay_at_desk_note");
    total();
  }
  function copyPartners(e) {   // members reused across events: fill a newly ticked event from one already filled
    var card = document.querySelector("[data-event='" + e.id + "']");
    var src = Array.prototype.filter.call(document.querySelectorAll(".pick-card"), function (c) {
      return c !== card && c.querySelector(".pick").checked && c.querySelectorAll(".m-name").length === card.querySelectorAll(".m-name").length;
    })[0];
    if (!src) return;
    ["m-name", "m-phone", "team"].forEach(function (cls) {
      var from = src.querySelectorAll("." + cls), to = card.querySelectorAll("." + cls);
      to.forEach(function (x, i) { if (!x.value && from[i]) x.value = from[i].value; });
    });
  }
  // Typing a partner in one event fills the same place in the others that still hold what it held before.
  document.addEventListener("focusin", function (ev) { if (ev.target.matches && ev.target.matches(".m-name,.m-phone,.team")) ev.target.dataset.before = ev.target.value; });
  document.addEventListener("input", function (ev) {
    var x = ev.target;
    if (!x.matches || !x.matches(".m-name,.m-phone,.team")) return;
    var cls = x.classList.contains("m-name") ? "m-name" : x.classList.contains("m-phone") ? "m-phone" : "team";
    var card = x.closest(".pick-card"), idx = Array.prototype.indexOf.call(card.querySelectorAll("." + cls), x);
    document.querySelectorAll(".pick-card").forEach(function (c) {
      if (c === card) return;
      var y = c.querySelectorAll("." + cls)[idx];
      if (y && (y.value === (x.dataset.before || "") )) { y.value = x.value; }
    });
    x.dataset.before = x.value;
  });
  function chosen() { return data.events.filter(function (e) { var p = box("pick-" + e.id); return p && p.checked; }); }
  function total() { box("total").textContent = A.money(chosen().reduce(function (s, e) { return s + fee(e); }, 0), data.currency); }
  window.onLangChange = render;
  document.addEventListener("DOMContentLoaded", async function () {
    try { data = await A.api("GET", "/public/tournaments/" + encodeURIComponent(tid), undefined, {noAuth: true}); render(); }
    catch (e) { A.showError(box("error"), e); return; }
    box("form").addEventListener("submit", async function (ev) {
      ev.preventDefault();
      box("error").hidden = true;
      var contact = {name: box("c-name").value.trim(), phone: box("c-phone").value.trim()};
      var items = chosen().map(function (e) {
        var card = document.querySelector("[data-event='" + e.id + "']"), members = [{name: contact.name, phone: contact.phone}];
        card.querySelectorAll(".row").forEach(function (r) {
          var m = {name: r.querySelector(".m-name").value.trim()}, p = r.querySelector(".m-phone").value.trim();
          if (p) m.phone = p;
          members.push(m);
        });
        var team = card.querySelector(".team");
        return {event_id: e.id, name: team && team.value.trim() ? team.value.trim() : null, members: members};
      });
      if (!items.length) { A.showError(box("error"), {body: {code: "pick", message: t("pick_one")}}); return; }
      var key = sessionStorage.getItem("idem-day-" + tid) || A.randomKey();
      sessionStorage.setItem("idem-day-" + tid, key);   // a double tap or a retry registers once
      try {
        var res = await A.busy(box("submit"), function () {
          return A.api("POST", "/tournaments/" + tid + "/registrations", {contact: contact, items: items}, {"Idempotency-Key": key, noAuth: true});
        });
        sessionStorage.removeItem("idem-day-" + tid);
        var link = location.origin + location.pathname.replace("day.html", "entry.html") + "?reg=" + res.registration.id + "#token=" + res.manage_token;
        localStorage.setItem("manage-reg-" + res.registration.id, res.manage_token);
        if (res.checkout_url) { location.href = res.checkout_url; return; }
        box("form").hidden = true; box("done").hidden = false;
        var waiting = res.registration.items.some(function (i) { return i.entry.status === "waitlisted"; });
        box("done-title").textContent = t(waiting ? "registered_some_waiting" : "registered");
        var ul = box("done-items"); ul.innerHTML = "";
        res.registration.items.forEach(function (i) { ul.appendChild(el("li", {text: i.event_name + " · " + t("status_" + i.entry.status)})); });
        box("done-pay").textContent = res.registration.amount_due ? t("pay_desk", {amount: A.money(res.registration.amount_due, res.registration.currency)}) : "";
        box("manage").href = link; box("manage").textContent = link;
        box("copy").onclick = function () { navigator.clipboard && navigator.clipboard.writeText(link); A.showNotice(box("error"), t("copied")); };
      } catch (e) { A.showError(box("error"), e); }
    });
  });
})();
