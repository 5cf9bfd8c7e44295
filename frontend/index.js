(function () {
  var A = window.App, t = A.t, el = A.el;
  var tid = A.qs("t"), data = null;
  function render() {
    if (!data) return;
    document.getElementById("title").textContent = data.name;
    document.title = data.name;
    document.getElementById("meta").textContent = [data.venue, data.starts_on + (data.ends_on !== data.starts_on ? " – " + data.ends_on : "")].filter(Boolean).join(" · ");
    var results = document.getElementById("results");
    results.href = (window.I18N.lang() === "en" ? "/en" : "") + "/t/" + data.id + "/index.html";
    var box = document.getElementById("events");
    box.innerHTML = "";
    data.events.forEach(function (e) {
      var fee = e.fee.amount ? A.money(e.fee.amount, data.currency) + " " + t(e.fee.per === "person" ? "per_person" : "per_entry") : t("free");
      var lines = [
        el("p", {}, [el("span", {"class": "tag", text: t("state_" + e.registration_state)}), " ", t("places_left") + ": " + e.places_left + " / " + e.capacity,
                     e.waitlisted ? " · " + t("waitlist") + " " + e.waitlisted : ""]),
        el("p", {text: t("fee") + ": " + fee}),
        e.closes_at_local ? el("p", {"class": "muted", text: t("deadline") + ": " + e.closes_at_local + " (" + data.timezone + ")"}) : null
      ];
      var action = e.registration_state === "open"
        ? el("a", {"class": "btn", href: "register.html?e=" + e.id + "&t=" + data.id, text: t("register")}) : null;
      box.appendChild(el("div", {"class": "card", "data-event": e.id}, [el("h3", {text: e.name})].concat(lines, [action])));
    });
    var open = data.events.filter(function (e) { return e.registration_state === "open"; }).length;
    if (open > 1) box.prepend(el("div", {"class": "card"}, [el("a", {"class": "btn", id: "register-day", href: "day.html?t=" + data.id, text: t("register_several")})]));
  }
  window.onLangChange = render;
  document.addEventListener("DOMContentLoaded", async function () {
    if (!tid) { document.getElementById("intro").hidden = false; return; }
    document.getElementById("tournament").hidden = false;
    try { data = await A.api("GET", "/public/tournaments/" + encodeURIComponent(tid), undefined, {noAuth: true}); render(); }
    catch (err) { A.showError(document.getElementById("error"), err); document.getElementById("events").innerHTML = ""; }
  });
})();
