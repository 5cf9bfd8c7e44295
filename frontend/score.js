(function () {
  var A = window.App, t = A.t, el = A.el;
  var eid = A.qs("e"), n = A.qs("r"), tn = A.qs("t"), code = A.qs("c") || localStorage.getItem("code:" + A.qs("e") + ":" + A.qs("r") + ":" + A.qs("t"));
  var base = "/events/" + eid + "/rounds/" + n + "/tables/" + tn;
  var view = null, deals = [], draft = {};
  var LV = {11: "J", 12: "Q", 13: "K", 14: "A"};
  var box = function (id) { return document.getElementById(id); };
  function hdr() { return {"X-Table-Code": code || "", noAuth: true}; }
  function err(e) { A.showError(box("error"), e); }
  function names() { var m = {}; view.table.sides.forEach(function (s) { m[s.entry_id] = s.name; }); return m; }
  function seatName(seat) {
    var s = view.table.sides.filter(function (x) { return x.seats.indexOf(String(seat)) >= 0; })[0];
    return s ? s.name : seat;
  }
  function key() { return view.game === "gouji" ? "games" : "deals"; }

  // ---------------------------------------------------------------- deal forms per game
  function seatPicker(seats, onDone) {
    var order = [], grid = el("div", {"class": "seats", role: "group", "aria-label": t("tap_order")});
    var shown = el("p", {"class": "muted", text: t("tap_order")});
    seats.forEach(function (s) {
      grid.appendChild(el("button", {type: "button", "data-seat": s, "aria-label": s + " " + seatName(s), text: s, onclick: function () {
        if (order.indexOf(s) >= 0) return;
        order.push(s); this.classList.add("used");
        shown.textContent = order.map(function (x) { return x + " " + seatName(x); }).join(" → ");
        if (order.length === seats.length) onDone(order.slice());
      }}));
    });
    return el("div", {}, [shown, grid, el("button", {type: "button", "class": "secondary small", text: t("undo"), onclick: renderForm})]);
  }
  function counter(label, get, set, max) {
    var v = el("span", {text: String(get())});
    return el("div", {"class": "counter"}, [el("span", {text: label}),
      el("button", {type: "button", "class": "small secondary", "aria-label": label + " −", text: "−", onclick: function () { set(Math.max(0, get() - 1)); v.textContent = get(); }}), v,
      el("button", {type: "button", "class": "small secondary", "aria-label": label + " +", text: "+", onclick: function () { set(Math.min(max, get() + 1)); v.textContent = get(); }})]);
  }
  function choice(name, options, current, onPick) {
    return el("div", {"class": "row", role: "radiogroup", "aria-label": name}, options.map(function (o) {
      return el("button", {type: "button", "class": o[0] === current ? "" : "secondary", "data-choice": name + ":" + o[0], text: o[1], onclick: function () { onPick(o[0]); renderForm(); }});
    }));
  }
  function renderForm() {
    var f = box("deal-form"); f.innerHTML = "";
    var label = view.game === "gouji" ? t("game_n", {n: deals.length + 1}) : t("deal", {n: deals.length + 1});
    f.appendChild(el("h3", {text: label}));
    if (view.game === "guandan") f.appendChild(seatPicker(["N", "E", "S", "W"], function (o) { addDeal({order: o}); }));
    else if (view.game === "gouji") f.appendChild(seatPicker(["1", "2", "3", "4", "5", "6"], function (o) { addDeal({order: o.map(Number)}); }));
    else if (view.game === "doudizhu") ddzForm(f);
    else tractorForm(f);
  }
  function ddzForm(f) {
    var d = draft;
    d.bid = d.bid || 1; d.winner = d.winner || "landlord"; d.bombs = d.bombs || {}; d.rockets = d.rockets || {};
    var seats = ["W", "S", "E"];
    f.appendChild(el("label", {text: t("landlord")}));
    f.appendChild(choice("landlord", seats.map(function (s) { return [s, s + " " + seatName(s)]; }), d.landlord, function (v) { d.landlord = v; }));
    f.appendChild(el("label", {text: t("bid")}));
    f.appendChild(choice("bid", [[1, "1"], [2, "2"], [3, "3"]], d.bid, function (v) { d.bid = v; }));
    f.appendChild(el("label", {text: t("winner")}));
    f.appendChild(choice("winner", [["landlord", t("w_landlord")], ["farmers", t("w_farmers")]], d.winner, function (v) { d.winner = v; }));
    f.appendChild(el("label", {text: t("bombs") + " / " + t("rocket")}));
    seats.forEach(function (s) {
      f.appendChild(el("div", {"class": "row"}, [
        counter(s + " " + t("bombs"), function () { return d.bombs[s] || 0; }, function (v) { d.bombs[s] = v; }, 13),
        counter(s + " " + t("rocket"), function () { return d.rockets[s] || 0; }, function (v) { d.rockets[s] = v; }, 1)]));
    });
    var spring = el("input", {type: "checkbox", id: "spring", checked: !!d.spring, onchange: function () { d.spring = this.checked; }});
    var rev = el("input", {type: "checkbox", id: "reverse", checked: !!d.reverse_spring, onchange: function () { d.reverse_spring = this.checked; renderForm(); }});
    f.appendChild(el("label", {"for": "spring"}, [spring, t("spring")]));
    f.appendChild(el("label", {"for": "reverse"}, [rev, t("reverse_spring")]));
    if (d.reverse_spring) {
      f.appendChild(el("label", {text: t("first_out")}));
      f.appendChild(choice("first_out", seats.filter(function (s) { return s !== d.landlord; }).map(function (s) { return [s, s + " " + seatName(s)]; }), d.first_out, function (v) { d.first_out = v; }));
    }
    f.appendChild(el("button", {type: "button", id: "add-deal", text: t("add_deal"), disabled: !d.landlord, onclick: function () {
      var deal = {landlord: d.landlord, bid: d.bid, winner: d.winner, bombs: clean(d.bombs), rockets: clean(d.rockets),
                  spring: !!d.spring, reverse_spring: !!d.reverse_spring};
      if (d.first_out) deal.first_out = d.first_out;
      addDeal(deal);
    }}));
  }
  function clean(o) { var r = {}; for (var k in o) if (o[k]) r[k] = o[k]; return r; }
  function tractorForm(f) {
    var d = draft, ids = view.table.sides.map(function (s) { return s.entry_id; });
    f.appendChild(el("label", {text: t("banker")}));
    f.appendChild(choice("banker", ids.map(function (e) { return [e, names()[e]]; }), d.banker, function (v) { d.banker = v; }));
    f.appendChild(el("label", {"for": "pts", text: t("attacker_points")}));
    f.appendChild(el("input", {id: "pts", type: "number", step: 5, min: -400, max: 400, value: d.points || 0, oninput: function () { d.points = Number(this.value); }}));
    f.appendChild(el("label", {"for": "decl", text: t("declared_cards")}));
    f.appendChild(el("input", {id: "decl", type: "number", min: 1, max: 8, value: d.declared || 1, oninput: function () { d.declared = Number(this.value); }}));
    f.appendChild(el("button", {type: "button", id: "add-deal", text: t("add_deal"), onclick: function () {
      if (!d.banker) return;
      addDeal({banker: d.banker, attacker_points: d.points || 0, declared_cards: d.declared || 1});
    }}));
  }
  function addDeal(d) {
    deals.push(d);
    draft = view.game === "tractor" ? {banker: d.banker} : {};
    renderDeals(); renderForm();                    // shown at once; the preview only checks and adds points
    preview().then(function (ok) { if (!ok) { deals.pop(); renderDeals(); renderForm(); } });
  }
  function describe(d, i) {
    if (view.game === "guandan" || view.game === "gouji") return d.order.map(function (s) { return s + " " + seatName(s); }).join(" → ");
    if (view.game === "doudizhu") {
      var extras = [];
      for (var s in d.bombs || {}) extras.push(s + " " + t("bombs") + "×" + d.bombs[s]);
      for (var r in d.rockets || {}) extras.push(r + " " + t("rocket"));
      if (d.spring) extras.push(t("spring"));
      if (d.reverse_spring) extras.push(t("reverse_spring"));
      return t("landlord") + " " + d.landlord + " " + seatName(d.landlord) + " · " + t("bid") + " " + d.bid + " · " +
             t(d.winner === "landlord" ? "w_landlord" : "w_farmers") + (extras.length ? " · " + extras.join(", ") : "");
    }
    return t("banker") + " " + names()[d.banker] + " · " + t("attacker_points") + " " + d.attacker_points +
           (d.declared_cards > 1 ? " · " + t("declared_cards") + " " + d.declared_cards : "");
  }
  function renderDeals() {
    var ol = box("deals"); ol.innerHTML = "";
    deals.forEach(function (d, i) { ol.appendChild(el("li", {text: describe(d, i)})); });
    if (deals.length) ol.appendChild(el("button", {type: "button", "class": "secondary small", text: t("undo"), onclick: function () { deals.pop(); preview(); renderDeals(); renderForm(); }}));
    box("submit").disabled = !deals.length;
  }
  function pointsTable(points, details) {
    var nm = names(), rows = [];
    Object.keys(points).forEach(function (e) {
      var p = points[e], txt = Object.keys(p).map(function (k) { return t("pt_" + k) + " " + p[k]; }).join(" · ");
      if (details && details.levels) txt = t("level") + " " + (LV[details.levels[e]] || details.levels[e]) + (details.passed_a === e ? " · " + t("passed_a") : "") + " · " + txt;
      rows.push(el("tr", {}, [el("td", {text: nm[e] || e}), el("td", {text: txt})]));
    });
    if (details && details.games && view.game === "tractor") {
      var g = details.games[details.games.length - 1];
      if (g && g.levels) rows.push(el("tr", {}, [el("td", {text: t("level")}), el("td", {text: Object.keys(g.levels).map(function (e) { return nm[e] + " " + (LV[g.levels[e]] || g.levels[e]); }).join(" · ")})]));
    }
    return el("table", {}, rows);
  }
  async function preview() {
    var out = box("running"); out.innerHTML = "";
    if (!deals.length) return true;
    var body = {version: view.table.version}; body[key()] = deals;
    try {
      var p = await A.api("POST", base + "/preview", body, hdr());
      box("error").hidden = true;
      out.appendChild(pointsTable(p.points, p.details));
      return true;
    } catch (e) {
      // The match may not be decided yet (Tractor best of three): show levels without blocking entry.
      if (e.code === "invalid_result" && /no winner yet|extra games/.test((e.body && e.body.message) || "")) { out.textContent = e.body.message; return true; }
      // Offline in the hall: keep the deal; the server checks it when the result is sent.
      if (e.status === 0) { out.textContent = t("preview_offline"); return true; }
      err(e); return false;
    }
  }

  // ---------------------------------------------------------------- page states
  function render() {
    var tb = view.table;
    box("head").hidden = false;
    box("title").textContent = view.event_name + " · " + t("round", {n: view.round}) + " · " + t("table") + " " + tb.number +
      (view.starts_at ? " · " + A.time(view.starts_at) + "–" + A.time(view.ends_at) : "");
    box("sides").textContent = tb.sides.map(function (s) { return s.name + " (" + s.seats.join("") + ")"; }).join("  " + "v" + "  ");
    box("me").textContent = view.side !== null && view.side !== undefined ? t("your_side") + ": " + tb.sides[view.side].name : "";
    box("entry").hidden = true; box("review").hidden = true;
    if (tb.status === "pending") { box("entry").hidden = false; renderForm(); renderDeals(); return; }
    box("notice").hidden = true;
    if (tb.status === "confirmed" || tb.status === "forfeit") {
      A.showNotice(box("notice"), t("is_confirmed"));
      box("review").hidden = false; box("confirm").hidden = true; box("dispute").hidden = true;
      box("review-text").textContent = "";
      showResult(); return;
    }
    if (tb.status === "disputed") {   // both phones: held for the referee, nothing to press
      A.showNotice(box("notice"), t("is_disputed") + (tb.dispute && tb.dispute.reason ? " · " + tb.dispute.reason : ""));
      box("notice").className = "notice warn";
      box("review").hidden = false; box("confirm").hidden = true; box("dispute").hidden = true;
      box("review-text").textContent = "";
      showResult(); return;
    }
    box("review").hidden = false;
    var mine = tb.entered_by && view.side !== null && tb.entered_by === "table " + tb.number + " side " + (view.side + 1);
    box("review-text").textContent = mine ? t("waiting_other") : t("other_entered");
    box("confirm").hidden = !!mine; box("dispute").hidden = !!mine;
    showResult();
  }
  function showResult() {
    var tb = view.table, rd = box("review-deals"); rd.innerHTML = "";
    var list = (tb.result && (tb.result.deals || tb.result.games)) || [];
    list.forEach(function (d, i) { rd.appendChild(el("li", {text: describe(d, i)})); });
    var rp = box("review-points"); rp.innerHTML = "";
    if (tb.points) rp.appendChild(pointsTable(tb.points, tb.details));
  }
  async function load() {
    if (!code) { box("code-form").hidden = false; return; }   // opened without the code: ask for it
    try { view = await A.api("GET", base, undefined, hdr()); etag = null; render(); }
    catch (e) { err(e); if (e.status === 403) box("code-form").hidden = false; }
  }

  // ---------------------------------------------------------------- weak Wi-Fi: keep, then send
  // A result is kept on the phone until the server has it, with the version it was entered against; if the
  // other side got there first (409), the newer result is shown instead of overwriting it.
  var PENDING = "pending:" + base + ":" + (code || "");
  function showSync(state) {
    var s = box("sync"); s.hidden = !state; s.className = "sync " + (state || "");
    s.textContent = state === "unsent" ? "● " + t("not_sent") : state === "sent" ? "✓ " + t("sent") : "";
  }
  async function sendPending() {
    var raw = localStorage.getItem(PENDING);
    if (!raw) return;
    var body = JSON.parse(raw);
    try {
      await A.api("PUT", base + "/result", body, hdr());
      localStorage.removeItem(PENDING); deals = []; showSync("sent"); await load();
    } catch (e) {
      if (e.status === 0) { showSync("unsent"); return; }      // still offline: keep it
      localStorage.removeItem(PENDING);
      if (e.code === "version_conflict" || e.code === "already_confirmed" || e.code === "disputed") {
        deals = []; showSync(null); await load(); A.showNotice(box("notice"), t("newer_result"));
      } else { showSync(null); err(e); }
    }
  }
  // Follow the table: the other phone enters, confirms or disputes; the referee settles. A cheap poll with
  // If-None-Match (304 when nothing changed); never re-rendered under deals being typed in.
  var etag = null;
  async function follow() {
    if (!view || document.hidden) return;
    var h = Object.assign({}, hdr()); delete h.noAuth; if (etag) h["If-None-Match"] = etag;
    try {
      var resp = await fetch(window.CONFIG.api + base, {headers: h});
      if (resp.status !== 200) return;
      etag = resp.headers.get("ETag");
      var next = await resp.json(), before = view.table;
      var typing = before.status === "pending" && deals.length > 0;
      if (next.table.version !== before.version || next.table.status !== before.status) {
        if (typing && next.table.status === "pending") return;
        view = next; render();
      }
    } catch (e) { /* offline for a moment: try again next time */ }
  }
  window.onLangChange = function () { if (view) render(); };
  document.addEventListener("DOMContentLoaded", function () {
    load();
    setInterval(follow, 4000);
    box("submit").addEventListener("click", function () {
      var body = {version: view.table.version}; body[key()] = deals;
      localStorage.setItem(PENDING, JSON.stringify(body));
      A.busy(this, sendPending);
    });
    window.addEventListener("online", sendPending);
    setInterval(function () { if (localStorage.getItem(PENDING)) sendPending(); }, 10000);
    if (localStorage.getItem(PENDING)) { showSync("unsent"); sendPending(); }
    box("code-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      code = box("code-input").value.replace(/[\s\-]/g, "").toUpperCase();
      if (!code) return;
      localStorage.setItem("code:" + eid + ":" + n + ":" + tn, code);
      PENDING = "pending:" + base + ":" + code;
      box("code-form").hidden = true; box("error").hidden = true; load();
    });
    box("confirm").addEventListener("click", function () {
      A.busy(this, function () { return A.api("POST", base + "/confirm", undefined, hdr()); }).then(load, err);
    });
    box("dispute").addEventListener("click", function () {
      var reason = prompt(t("dispute_reason")) || "";
      A.api("POST", base + "/dispute", {reason: reason}, hdr()).then(load, err);
    });
  });
})();
