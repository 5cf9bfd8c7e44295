(function () {
  var A = window.App, t = A.t, el = A.el;
  var eid = A.qs("e"), tid = A.qs("t"), event = null, tournament = null;
  function memberCount() {
    var size = event.entry.size || 1;
    return document.getElementById("partner").checked ? 1 : size;
  }
  function renderMembers() {
    var box = document.getElementById("members"), n = memberCount(), old = [];
    box.querySelectorAll("fieldset").forEach(function (f) { old.push([f.querySelector(".m-name").value, f.querySelector(".m-phone").value]); });
    box.innerHTML = "";
    for (var i = 0; i < n; i++) {
      var id = "m" + i;
      box.appendChild(el("fieldset", {"class": "card", style: "padding:8px"}, [
        el("legend", {text: t(n === 1 ? "your_name" : "member") + (n > 1 ? " " + (i + 1) : "")}),
        el("label", {"for": id + "n", text: t("your_name")}),
        el("input", {id: id + "n", "class": "m-name", required: true, value: old[i] ? old[i][0] : "", autocomplete: "name"}),
        el("label", {"for": id + "p", text: t("phone")}),
        el("input", {id: id + "p", "class": "m-phone", type: "tel", inputmode: "tel", value: old[i] ? old[i][1] : "", autocomplete: "tel"})
      ]));
    }
  }
  function renderHead() {
    if (!event) return;
    document.getElementById("event-name").textContent = event.name;
    var fee = event.fee.amount ? A.money(event.fee.amount, tournament.currency) + " " + t(event.fee.per === "person" ? "per_person" : "per_entry") : t("free");
    document.getElementById("event-meta").textContent = t("fee") + ": " + fee + " · " + t("places_left") + ": " + event.places_left +
      (event.closes_at_local ? " · " + t("deadline") + ": " + event.closes_at_local : "");
    document.getElementById("team-name-row").hidden = (event.entry.size || 1) === 1;
    document.getElementById("code-row").hidden = event.eligibility !== "codes";
    document.getElementById("partner-row").hidden = (event.entry.size || 1) === 1;
    renderMembers();
  }
  window.onLangChange = renderHead;
  document.addEventListener("DOMContentLoaded", async function () {
    var err = document.getElementById("error");
    try {
      tournament = await A.api("GET", "/public/tournaments/" + encodeURIComponent(tid), undefined, {noAuth: true});
      event = tournament.events.filter(function (e) { return e.id === eid; })[0];
      if (!event) throw {body: {code: "not_found", message: "event"}};
      renderHead();
    } catch (e) { A.showError(err, e); return; }
    document.getElementById("partner").addEventListener("change", renderMembers);
    document.getElementById("form").addEventListener("submit", async function (ev) {
      ev.preventDefault();
      err.hidden = true;
      var members = [];
      document.querySelectorAll("#members fieldset").forEach(function (f) {
        var m = {name: f.querySelector(".m-name").value.trim()};
        var p = f.querySelector(".m-phone").value.trim();
        if (p) m.phone = p;
        members.push(m);
      });
      var body = {name: document.getElementById("name").value.trim() || null, club: document.getElementById("club").value.trim(),
                  eligibility_code: document.getElementById("code").value.trim() || null, members: members,
                  partner_wanted: document.getElementById("partner").checked};
      var key = sessionStorage.getItem("idem-" + eid) || A.randomKey();
      sessionStorage.setItem("idem-" + eid, key);  // a double tap or a retry registers once
      try {
        var res = await A.busy(document.getElementById("submit"), function () {
          return A.api("POST", "/events/" + eid + "/entries", body, {"Idempotency-Key": key, noAuth: true});
        });
        sessionStorage.removeItem("idem-" + eid);
        localStorage.setItem("manage-" + res.entry.id, res.manage_token);
        if (res.checkout_url) { location.href = res.checkout_url; return; }
        document.getElementById("form").hidden = true;
        document.getElementById("done").hidden = false;
        document.getElementById("done-status").textContent = t("status_" + res.entry.status);
        document.getElementById("done-extra").textContent = res.entry.waitlist_position ? t("position", {n: res.entry.waitlist_position}) :
          res.entry.status === "waitlisted" ? t("position_later") : "";
        document.getElementById("pay").textContent = res.entry.status === "pending_payment" ? t("pay_desk", {amount: A.money(res.entry.amount_due, res.entry.currency)}) : "";
        var link = location.origin + location.pathname.replace("register.html", "entry.html") + "?id=" + res.entry.id + "#token=" + res.manage_token;
        var a = document.getElementById("manage");
        a.href = link; a.textContent = link;
      } catch (e) { A.showError(err, e); }
    });
  });
})();
