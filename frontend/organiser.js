(function () {
  var A = window.App, t = A.t, el = A.el;
  var S = {tournaments: [], tid: null, events: [], eid: null, tab: "entries", entries: [], round: null, timer: null};
  var LEVELS = {11: "J", 12: "Q", 13: "K", 14: "A"};
  var GAMES = {
    guandan: {kind: {kind: "pair"}, kindText: "对 pair", formats: ["swiss", "round_robin", "knockout", "special_swiss"],
              methods: {level_points: {pass_a_points: 15, bye_level_points: 10}, match_points: {bye_match_points: 1.5, bye_level_diff_points: 17}}},
    doudizhu: {kind: {kind: "individual"}, kindText: "个人 individual", formats: ["swiss"],
               methods: {table_points: {deals_per_round: 6, bye_table_points: 3}}},
    gouji: {kind: {kind: "team", size: 3}, kindText: "三人队 team of 3", formats: ["knockout", "round_robin", "swiss"],
            methods: {position_points: {games_per_match: 1, withdrawal_points: 32}}},
    tractor: {kind: {kind: "pair"}, kindText: "对 pair", formats: ["knockout", "round_robin", "swiss"],
              methods: {level_table: {best_of: 3, start_level: 3}}}
  };
  var box = function (id) { return document.getElementById(id); };
  function err(e) { A.showError(box("error"), e); }
  function note(text) { box("error").hidden = true; A.showNotice(box("notice"), text); }

  // ---------------------------------------------------------------- words (GET /glossary: one source with the pages)
  var G = {};
  function term(kind, code) {
    var x = G[kind] && G[kind][code];
    return x ? (window.I18N.lang() === "zh" ? x.zh : x.en) : code;
  }
  function pointsText(points) {   // "场分 2 · 级差分 17", never "2 / 17"
    return Object.keys(points || {}).map(function (k) { var v = points[k]; return term("point", k) + " " + (Math.round(v * 100) / 100); }).join(" · ");
  }

  // ---------------------------------------------------------------- sign in
  async function signIn(token) {
    localStorage.setItem("organiserToken", token); localStorage.removeItem("isSession");
    try { S.me = await A.api("GET", "/organiser"); }
    catch (e) { localStorage.removeItem("organiserToken"); throw e; }
  }
  async function passwordSignIn(ev) {
    ev.preventDefault();
    var body = {login: box("login").value.trim(), password: box("password").value, device: navigator.userAgent.slice(0, 80)};
    try {
      var s = await A.busy(ev.submitter || box("password-form").querySelector("button"), function () { return A.api("POST", "/auth/sign-in", body, {noAuth: true}); });
      box("password").value = ""; box("error").hidden = true;
      await signIn(s.token); localStorage.setItem("isSession", "1"); await start();
    } catch (e) { err(e); }
  }
  // A staff sign-in link carries its token in the fragment (never sent to a server): keep it, then drop it
  // from the address bar so it is not shared by accident.
  function tokenFromLink() {
    var m = /staff=([A-Za-z0-9_\-]+)/.exec(location.hash || "");
    if (!m) return false;
    localStorage.setItem("organiserToken", m[1]); localStorage.removeItem("tid"); localStorage.removeItem("eid");
    history.replaceState(null, "", location.pathname + location.search);
    return true;
  }
  // What a role sees: the desk the registration desk, a scorer the day's run; nothing it cannot use.
  var TABS_BY_ROLE = {owner: ["entries", "run", "standings"], director: ["entries", "run", "standings"],
                      desk: ["entries"], scorer: ["run", "standings"]};
  function applyRole() {
    var role = (S.me && S.me.role) || "owner", tabs = TABS_BY_ROLE[role] || [];
    document.querySelectorAll(".tabs button").forEach(function (b) { b.hidden = tabs.indexOf(b.getAttribute("data-tab")) < 0; });
    if (tabs.indexOf(S.tab) < 0) S.tab = tabs[0];
    box("show-new-t").hidden = role !== "owner"; box("show-new-e").hidden = role !== "owner" && role !== "director";
    box("show-staff").hidden = role !== "owner"; box("show-devices").hidden = role !== "owner";
    box("who").textContent = S.me && S.me.kind === "staff" ? S.me.staff_name + " · " + t("role_" + role) : (S.me ? S.me.name : "");
  }
  async function start() {
    if (!Object.keys(G).length) { try { G = await A.api("GET", "/glossary", undefined, {noAuth: true}); } catch (e) { G = {}; } fillEventForm(); }
    if (!localStorage.getItem("organiserToken")) { box("signin").hidden = false; return; }
    if (!S.me) S.me = await A.api("GET", "/organiser");
    box("error").hidden = true;
    box("signin").hidden = true; box("console").hidden = false; box("signout").hidden = false;
    applyRole();
    await loadTournaments();
  }

  // ---------------------------------------------------------------- tournaments and events
  async function loadTournaments(select) {
    S.tournaments = (await A.api("GET", "/tournaments")).tournaments;
    var sel = box("tsel"); sel.innerHTML = "";
    S.tournaments.forEach(function (tn) { sel.appendChild(el("option", {value: tn.id, text: tn.name})); });
    S.tid = select || localStorage.getItem("tid") || (S.tournaments[0] && S.tournaments[0].id);
    if (S.tid && !S.tournaments.some(function (x) { return x.id === S.tid; })) S.tid = S.tournaments[0] && S.tournaments[0].id;
    sel.value = S.tid || "";
    await loadEvents();
  }
  async function loadEvents(select) {
    var sel = box("esel"); sel.innerHTML = ""; S.events = [];
    if (!S.tid) return;
    localStorage.setItem("tid", S.tid);
    box("public-link").href = "index.html?t=" + S.tid; box("public-link").textContent = t("public_page") + " →";
    S.events = (await A.api("GET", "/tournaments/" + S.tid)).events;
    S.events.forEach(function (e) { sel.appendChild(el("option", {value: e.id, text: e.config.name})); });
    S.eid = select || localStorage.getItem("eid");
    if (!S.events.some(function (e) { return e.id === S.eid; })) S.eid = S.events[0] && S.events[0].id;
    sel.value = S.eid || "";
    showTab(S.tab);
  }
  // ---------------------------------------------------------------- staff (the organiser only)
  async function loadStaff() {
    if (!S.tid) return;
    var list = (await A.api("GET", "/tournaments/" + S.tid + "/staff")).staff, out = box("staff-list"); out.innerHTML = "";
    list.forEach(function (m) {
      // who added the member: revoking that device or token ends this link too (issue 20)
      var by = m.created_by ? (m.created_by_label || t("staff_by_gone")) : "";
      out.appendChild(el("p", {}, [el("span", {text: m.name + " · " + t("role_" + m.role) + " "}),
        by ? el("span", {"class": "muted", text: t("staff_by") + " " + by + " "}) : null,
        el("button", {type: "button", "class": "small secondary", text: t("remove"), onclick: function () {
          A.api("DELETE", "/tournaments/" + S.tid + "/staff/" + m.id).then(loadStaff, err); }})]));
    });
  }
  async function loadDevices() {   // sessions and API tokens: see them, cut one off (a lost phone, a stolen token)
    var out = box("devices"); out.innerHTML = "";
    var list = (await A.api("GET", "/organiser/tokens")).tokens;
    list.forEach(function (d) {
      out.appendChild(el("p", {}, [el("span", {text: d.label + " · " + t("kind_" + d.kind) + " · " + new Date(d.created_at).toLocaleString() +
        (d.current ? " · " + t("this_device") : "") + " "}),
        d.current ? null : el("button", {type: "button", "class": "small secondary", text: t("revoke"), onclick: function () {
          A.api("DELETE", "/organiser/tokens/" + d.id).then(loadDevices, err); }})]));
    });
  }
  async function addStaff(ev) {
    ev.preventDefault();
    try {
      var m = await A.api("POST", "/tournaments/" + S.tid + "/staff", {name: box("staff-name").value.trim(), role: box("staff-role").value});
      box("staff-name").value = "";
      var shown = box("staff-new"); shown.innerHTML = "";
      shown.appendChild(el("p", {text: t("staff_link") + " " + m.name + " · " + t("role_" + m.role)}));
      shown.appendChild(el("div", {"class": "qr", html: m.qr_svg}));
      shown.appendChild(el("p", {"class": "wrap"}, [el("a", {href: m.link, text: m.link})]));
      await loadStaff();
    } catch (e) { err(e); }
  }
  function currentEvent() { return S.events.filter(function (e) { return e.id === S.eid; })[0]; }
  function tournament() { return S.tournaments.filter(function (x) { return x.id === S.tid; })[0]; }

  function fillEventForm() {
    var g = GAMES[box("ne-game").value];
    box("ne-kind").textContent = g.kindText;
    var fsel = box("ne-format"); fsel.innerHTML = "";
    g.formats.forEach(function (f) { fsel.appendChild(el("option", {value: f, text: term("format", f)})); });
    var msel = box("ne-method"); msel.innerHTML = "";
    Object.keys(g.methods).forEach(function (m) { msel.appendChild(el("option", {value: m, text: term("method", m)})); });
    fillOptions();
  }
  function fillOptions() {
    var g = GAMES[box("ne-game").value], opts = g.methods[box("ne-method").value], o = box("ne-options");
    o.innerHTML = "";
    Object.keys(opts).forEach(function (k) {
      o.appendChild(el("div", {}, [el("label", {"for": "opt-" + k, text: term("option", k)}), el("input", {id: "opt-" + k, "data-opt": k, type: "number", step: "any", value: opts[k]})]));
    });
    box("ne-rounds").disabled = ["knockout", "round_robin"].indexOf(box("ne-format").value) >= 0;
  }
  async function createEvent(ev) {
    ev.preventDefault();
    var game = box("ne-game").value, format = box("ne-format").value, scoring = {method: box("ne-method").value};
    document.querySelectorAll("#ne-options [data-opt]").forEach(function (i) { scoring[i.getAttribute("data-opt")] = Number(i.value); });
    var stage = {format: format, scoring: scoring};
    if (["swiss", "special_swiss"].indexOf(format) >= 0) stage.rounds = Number(box("ne-rounds").value);
    var codes = box("ne-codes").value.split(/[,，\s]+/).filter(Boolean);
    var reg = {eligibility: codes.length ? {kind: "codes", codes: codes} : {kind: "open"}};
    if (box("ne-close").value) reg.closes_at = box("ne-close").value;
    var body = {name: box("ne-name").value.trim(), game: game, entry: GAMES[game].kind, capacity: Number(box("ne-cap").value),
                fee: {amount: Math.round(Number(box("ne-fee").value) * 100), per: box("ne-per").value}, registration: reg, stages: [stage]};
    try { var e = await A.api("POST", "/tournaments/" + S.tid + "/events", body); box("new-e").hidden = true; await loadEvents(e.id); note(t("saved")); }
    catch (x) { err(x); }
  }
  async function createTournament(ev) {
    ev.preventDefault();
    var body = {name: box("nt-name").value.trim(), venue: box("nt-venue").value.trim(), timezone: box("nt-tz").value.trim(),
                currency: box("nt-cur").value.trim(), starts_on: box("nt-start").value, ends_on: box("nt-end").value || null};
    try { var tn = await A.api("POST", "/tournaments", body); box("new-t").hidden = true; await loadTournaments(tn.id); note(t("saved")); }
    catch (x) { err(x); }
  }

  // ---------------------------------------------------------------- tabs
  function showTab(tab) {
    S.tab = tab;
    clearInterval(S.timer);
    document.querySelectorAll(".tabs button").forEach(function (b) {
      var on = b.getAttribute("data-tab") === tab; b.classList.toggle("on", on); b.setAttribute("aria-selected", on);
    });
    ["entries", "run", "standings"].forEach(function (x) { box("tab-" + x).hidden = x !== tab; });
    if (!S.eid) return;
    localStorage.setItem("eid", S.eid);
    if (tab === "entries") loadEntries();
    if (tab === "run") { loadRound(); loadAppeals().catch(err); S.timer = setInterval(loadRound, 5000); }  // live table status
    if (tab === "standings") loadStandings();
  }

  // ---------------------------------------------------------------- entries
  async function loadEntries() {
    try {
      var q = box("q").value.trim();
      var data = await A.api("GET", "/events/" + S.eid + "/entries" + (q ? "?q=" + encodeURIComponent(q) : ""));
      S.entries = data.entries;
      var c = data.counters;
      box("counters").textContent = t("status_confirmed") + " " + c.confirmed + " · " + t("status_pending_payment") + " " + c.held +
        " · " + t("status_waitlisted") + " " + c.waitlisted;
      renderEntries();
    } catch (e) { err(e); }
  }
  function renderEntries() {
    var tb = box("entries-table"); tb.innerHTML = "";
    tb.appendChild(el("tr", {}, ["", t("name"), t("club"), t("member"), "", t("fee"), ""].map(function (h) { return el("th", {text: h}); })));
    S.entries.forEach(function (e) {
      var actions = [];
      if (e.status === "confirmed" && !e.checked_in) actions.push(el("button", {"class": "small", type: "button", text: t("check_in"), onclick: function () { act(this, "/check-in"); }}));
      if (e.checked_in) actions.push(el("span", {"class": "tag confirmed", text: t("checked_in")}));
      if (e.status === "pending_payment") actions.push(el("button", {"class": "small", type: "button", text: t("cash") + " " + A.money(e.amount_due - e.amount_paid, e.currency),
        onclick: function () { act(this, "/payments", {method: "cash", amount: e.amount_due - e.amount_paid}); }}));
      if (["confirmed", "pending_payment", "waitlisted"].indexOf(e.status) >= 0) actions.push(el("button", {"class": "small secondary", type: "button", text: t("withdraw"),
        onclick: function () { if (confirm(t("withdraw") + "?")) act(this, "/withdraw", {reason: ""}); }}));
      function act(btn, path, body) {
        A.busy(btn, function () { return A.api("POST", "/events/" + S.eid + "/entries/" + e.id + path, body); }).then(loadEntries, err);
      }
      tb.appendChild(el("tr", {"data-entry": e.id}, [
        el("td", {}, [e.status === "partner_wanted" ? el("input", {type: "checkbox", "class": "seek", value: e.id, "aria-label": e.name}) : null]),
        el("td", {text: e.name}), el("td", {text: e.club}),
        el("td", {text: e.members.map(function (m) { return m.name + (m.phone ? " " + m.phone : ""); }).join("、")}),
        el("td", {}, [el("span", {"class": "tag " + e.status, text: t("status_" + e.status)})]),
        el("td", {text: e.amount_due ? A.money(e.amount_paid, e.currency) + " / " + A.money(e.amount_due, e.currency) +
          (e.amount_refunded ? " · " + t("refunded_amount") + " " + A.money(e.amount_refunded, e.currency) : "") : t("free")}),
        el("td", {}, actions)]));
    });
  }
  async function download(fmt) {
    try {
      var resp = await fetch(window.CONFIG.api + "/events/" + S.eid + "/entries/export?format=" + fmt,
                             {headers: {Authorization: "Bearer " + localStorage.getItem("organiserToken"), Accept: "*/*"}});
      if (!resp.ok) throw {body: await resp.json()};
      var blob = await resp.blob(), a = el("a", {href: URL.createObjectURL(blob), download: "entries." + fmt});
      document.body.appendChild(a); a.click(); a.remove();
    } catch (e) { err(e); }
  }

  // ---------------------------------------------------------------- the day's run
  async function loadRound() {
    try {
      var list = await A.api("GET", "/events/" + S.eid + "/rounds");
      if (!list.rounds.length) { box("round").innerHTML = ""; S.round = null; S.rendered = null; return; }
      var n = list.rounds[list.rounds.length - 1].n;
      S.round = await A.api("GET", "/events/" + S.eid + "/rounds/" + n);
      var snapshot = JSON.stringify(S.round);
      // Re-render only on change, and never under an open result form: the desk may be mid-click.
      if (snapshot !== S.rendered && !document.querySelector("#round form")) { S.rendered = snapshot; renderRound(); }
    } catch (e) { clearInterval(S.timer); err(e); }
  }
  function sideNames(tb) { return tb.sides.map(function (s) { return s.name + " (" + s.seats.join("") + ")"; }); }
  function renderRound() {
    var r = S.round, out = box("round"); out.innerHTML = "";
    var zh = window.I18N.lang() === "zh";
    out.appendChild(el("h3", {text: t("round", {n: r.number}) + " · " + (zh ? r.format_zh : r.format_en) + " · " + t("seed") + " " + r.seed}));
    if (r.starts_at) out.appendChild(el("p", {"class": "muted", text: t("scheduled") + " " + A.time(r.starts_at) + "–" + A.time(r.ends_at)}));
    var disputed = r.tables.filter(function (tb) { return tb.status === "disputed"; });
    if (disputed.length) {   // the referee's queue first
      out.appendChild(el("div", {"class": "card alert", id: "disputes"}, [el("h4", {text: t("open_disputes")})].concat(disputed.map(function (tb) {
        return el("p", {}, [el("b", {text: t("table") + " " + tb.number + " · "}), el("span", {text: sideNames(tb).join(" v ") + " · " + t("dispute_reason") + ": " + ((tb.dispute && tb.dispute.reason) || "—") + " "}),
          el("button", {type: "button", "class": "small", text: t("settle"), onclick: function () { resultForm(tb); }})]);
      }))));
    }
    out.appendChild(el("p", {}, [
      el("button", {type: "button", "class": "secondary small", text: t("print_cards"), onclick: printCards}),
      el("button", {type: "button", "class": "small", id: "close-round", text: t("close_round"), onclick: function () {
        A.busy(this, function () { return A.api("POST", "/events/" + S.eid + "/rounds/" + r.number + "/close"); }).then(function () { loadRound(); note(t("close_round") + " ✓"); }, err);
      }}),
      el("button", {type: "button", "class": "small", id: "publish", text: t("publish"), onclick: publish})]));
    var rows = [el("tr", {}, [t("table"), t("name"), t("codes"), t("reason"), ""].map(function (h) { return el("th", {text: h}); }))];
    r.tables.forEach(function (tb) {
      var actions = [el("span", {"class": "tag " + tb.status, text: t("t_" + tb.status)})];
      if (r.status === "open" || tb.status !== "pending") actions.push(el("button", {type: "button", "class": "small", text: t("enter_result"), onclick: function () { resultForm(tb); }}));
      if (tb.status === "entered") actions.push(el("button", {type: "button", "class": "small", text: t("confirm"), onclick: function () {
        A.busy(this, function () { return A.api("POST", "/events/" + S.eid + "/rounds/" + r.number + "/tables/" + tb.number + "/confirm"); }).then(loadRoundNow, err);
      }}));
      if (tb.status === "pending" || tb.status === "entered" || tb.status === "disputed") actions.push(el("button", {type: "button", "class": "small secondary", text: t("forfeit"), onclick: function () { forfeitForm(tb); }}));
      if (r.status === "open" && (tb.status === "pending" || tb.status === "entered")) actions.push(el("button", {type: "button", "class": "small secondary", text: t("arrival"), onclick: function () { arrivalForm(tb); }}));
      rows.push(el("tr", {"data-table": tb.number}, [el("td", {"class": "n", text: String(tb.number)}),
        el("td", {}, tb.sides.map(function (s) {   // who, where they sit, and the scores entered
          var pts = tb.points && tb.points[s.entry_id];
          return el("div", {}, [el("span", {text: s.name + " (" + s.seats.join("") + ")"}),
            pts && tb.status !== "pending" ? el("span", {"class": "muted pts", text: " · " + pointsText(pts)}) : null]);
        })),
        el("td", {}, (tb.codes || []).map(function (c, i) { return el("div", {}, [el("a", {href: "score.html?e=" + S.eid + "&r=" + r.number + "&t=" + tb.number + "&c=" + c, target: "_blank", text: c})]); })),
        el("td", {"class": "muted", text: zh ? tb.reason_zh : tb.reason_en}), el("td", {}, actions)]));
    });
    r.byes.forEach(function (b) { rows.push(el("tr", {}, [el("td", {text: "–"}), el("td", {text: r.bye_names[b] || ""}), el("td", {}),
      el("td", {"class": "muted", text: (zh ? r.bye_reasons_zh[b] : r.bye_reasons_en[b]) || t("bye")}), el("td", {text: t("bye")})])); });
    out.appendChild(el("div", {"class": "scroll"}, [el("table", {"class": "stack"}, rows)]));

  }
  function loadRoundNow() { S.rendered = null; return loadRound(); }
  async function draw() {
    var seed = box("seed").value;
    try {
      await A.busy(box("draw"), function () { return A.api("POST", "/events/" + S.eid + "/rounds", seed ? {seed: Number(seed)} : {}); });
      box("seed").value = ""; await loadRoundNow(); note(t("round", {n: S.round.number}) + " ✓");
    } catch (e) { err(e); }
  }
  async function printCards() {
    try {
      var resp = await fetch(window.CONFIG.api + "/events/" + S.eid + "/rounds/" + S.round.number + "/cards",
                             {headers: {Authorization: "Bearer " + localStorage.getItem("organiserToken")}});
      var html = await resp.text(), w = window.open("", "_blank");
      if (w) { w.document.write(html); w.document.close(); }
    } catch (e) { err(e); }
  }
  async function publish() {
    try {
      var r = await A.busy(box("publish"), function () { return A.api("POST", "/tournaments/" + S.tid + "/publish"); });
      var url = "/t/" + S.tid + "/" + S.eid + "/standings.html";
      box("notice").hidden = false; box("notice").className = "notice"; box("notice").innerHTML = "";
      box("notice").appendChild(el("span", {text: t("published") + r.files + " · "}));
      box("notice").appendChild(el("a", {href: url, id: "published-link", target: "_blank", text: url}));
    } catch (e) { err(e); }
  }
  function forfeitForm(tb) {
    var sel = el("select", {id: "forfeit-who"}, tb.sides.map(function (s) { return el("option", {value: s.entry_id, text: s.name}); }));
    var exc = el("input", {type: "checkbox", id: "forfeit-excused"}), fm = el("input", {type: "checkbox", id: "forfeit-fm"});
    var f = el("form", {"class": "card"}, [el("label", {"for": "forfeit-who", text: t("forfeit")}), sel,
      el("label", {"class": "check"}, [exc, el("span", {text: " " + t("excused")})]),
      el("label", {"class": "check"}, [fm, el("span", {text: " " + t("force_majeure")})]),
      el("button", {type: "submit", text: t("submit")}), el("button", {type: "button", "class": "secondary", text: "×", onclick: function () { f.remove(); }})]);
    f.addEventListener("submit", function (ev) {
      ev.preventDefault();
      A.api("POST", "/events/" + S.eid + "/rounds/" + S.round.number + "/tables/" + tb.number + "/forfeit",
        {entry_id: sel.value, excused: exc.checked, force_majeure: fm.checked}).then(function () { f.remove(); loadRoundNow(); }, err);
    });
    box("round").prepend(f);
  }
  function arrivalForm(tb) {
    var sel = el("select", {id: "arrival-who"}, tb.sides.map(function (s) { return el("option", {value: s.entry_id, text: s.name}); }));
    var now = new Date(), pad = function (x) { return (x < 10 ? "0" : "") + x; };
    var at = el("input", {type: "time", id: "arrival-at", value: pad(now.getHours()) + ":" + pad(now.getMinutes())});
    var f = el("form", {"class": "card"}, [el("label", {"for": "arrival-who", text: t("arrival")}), sel,
      el("label", {"for": "arrival-at", text: t("arrived_at")}), at,
      el("button", {type: "submit", text: t("submit")}), el("button", {type: "button", "class": "secondary", text: "×", onclick: function () { f.remove(); }})]);
    f.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var hm = at.value.split(":"), d = new Date(); d.setHours(Number(hm[0]), Number(hm[1]), 0, 0);
      A.api("POST", "/events/" + S.eid + "/rounds/" + S.round.number + "/tables/" + tb.number + "/arrival",
        {entry_id: sel.value, arrived_at: d.toISOString()}).then(function (res) {
          f.remove(); loadRoundNow();
          var lvl = Object.keys(res.start_levels || {}).map(function (k) { return res.start_levels[k]; })[0];
          note(t("late_" + res.effect, {m: res.late_minutes, l: lvl}));
        }, err);
    });
    box("round").prepend(f);
  }
  async function loadAppeals() {
    var out = box("appeals"); if (!out || !S.eid) return;
    var list = (await A.api("GET", "/events/" + S.eid + "/appeals")).appeals;
    out.innerHTML = "";
    out.appendChild(el("h3", {text: t("appeals")}));
    if (!list.length) { out.appendChild(el("p", {"class": "muted", text: t("no_appeals")})); return; }
    list.forEach(function (a) {
      var acts = [];
      if (a.fee_status === "due") acts.push(el("button", {type: "button", "class": "small secondary", text: t("fee_paid"), onclick: function () {
        A.api("POST", "/appeals/" + a.id + "/fee", {method: "cash"}).then(loadAppeals, err); }}));
      if (a.status === "lodged" && a.fee_status !== "due") ["upheld", "rejected"].forEach(function (o) {   // the fee first (seed 001)
        acts.push(el("button", {type: "button", "class": "small", text: t(o === "upheld" ? "uphold" : "reject"), onclick: function () {
          var ruling = prompt(t("ruling")); if (!ruling) return;
          A.api("POST", "/appeals/" + a.id + "/decision", {outcome: o, ruling: ruling}).then(function () { loadAppeals(); loadRoundNow(); }, err); }}));
      });
      var fee = t(a.fee_status === "paid" ? "fee_paid_s" : "fee_" + a.fee_status);
      out.appendChild(el("div", {"class": "card"}, [el("p", {}, [el("b", {text: t("round", {n: a.round}) + " · " + t("table") + " " + a.table + " · " + a.name + " "}),
        el("span", {"class": "tag", text: t("a_" + (a.outcome || a.status))}), el("span", {"class": "muted", text: " " + fee})]),
        el("p", {text: a.text}), a.ruling ? el("p", {"class": "muted", text: t("ruling") + ": " + a.ruling}) : el("span")].concat([el("p", {}, acts)])));
    });
  }
  function levelSelect(id) {
    var s = el("select", {id: id});
    for (var l = 2; l <= 14; l++) s.appendChild(el("option", {value: l, text: LEVELS[l] || String(l)}));
    return s;
  }
  function resultForm(tb) {
    var game = currentEvent().config.game, fields = [], collect;
    var ids = tb.sides.map(function (s) { return s.entry_id; });
    if (game === "guandan") {
      tb.sides.forEach(function (s, i) {
        fields.push(el("label", {"for": "lv" + i, text: s.name + " · " + t("level")}), levelSelect("lv" + i),
                    el("label", {}, [el("input", {type: "radio", name: "passa", value: s.entry_id}), t("passed_a")]));
      });
      collect = function () {
        var levels = {}; ids.forEach(function (e, i) { levels[e] = Number(box("lv" + i).value); });
        var p = document.querySelector("input[name=passa]:checked");
        return {final: {levels: levels, passed_a: p ? p.value : null}};
      };
    } else if (game === "doudizhu") {
      tb.sides.forEach(function (s, i) {
        fields.push(el("div", {"class": "row"}, [el("div", {}, [el("label", {"for": "sp" + i, text: s.name + " · " + t("small_points")}), el("input", {id: "sp" + i, type: "number", value: 0})]),
          el("div", {}, [el("label", {"for": "ld" + i, text: t("landlord_deals")}), el("input", {id: "ld" + i, type: "number", min: 0, value: 0})])]));
      });
      collect = function () {
        var sp = {}, ld = {}; ids.forEach(function (e, i) { sp[e] = Number(box("sp" + i).value); ld[e] = Number(box("ld" + i).value); });
        return {final: {small_points: sp, landlord_deals: ld}};
      };
    } else if (game === "gouji") {
      fields.push(el("label", {"for": "gj", text: t("order") + " (1 4 2 5 3 6; …)"}), el("input", {id: "gj", value: "1 2 3 4 5 6"}),
                  el("label", {"for": "gjx", text: "extra games"}), el("input", {id: "gjx", value: ""}));
      var parse = function (v) { return v.split(";").map(function (g) { return g.trim(); }).filter(Boolean).map(function (g) { return {order: g.split(/[\s,]+/).map(Number)}; }); };
      collect = function () { var b = {games: parse(box("gj").value)}; var x = parse(box("gjx").value); if (x.length) b.extra_games = x; return b; };
    } else {
      tb.sides.forEach(function (s, i) { fields.push(el("label", {"for": "gw" + i, text: s.name + " · " + t("games_won")}), el("input", {id: "gw" + i, type: "number", min: 0, max: 5, value: i ? 0 : 2})); });
      collect = function () { var g = {}; ids.forEach(function (e, i) { g[e] = Number(box("gw" + i).value); }); return {final: {games_won: g}}; };
    }
    var reason = tb.status === "confirmed" ? [el("label", {"for": "fix-reason", text: t("reason")}), el("input", {id: "fix-reason", required: true})] : [];
    var f = el("form", {"class": "card", id: "result-form"}, [el("h3", {text: t("table") + " " + tb.number + " · " + t("enter_result")})].concat(fields, reason, [
      el("button", {type: "submit", text: t("submit_result")}), el("button", {type: "button", "class": "secondary", text: "×", onclick: function () { f.remove(); loadRoundNow(); }})]));
    f.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var body = Object.assign({version: tb.version}, collect());
      if (box("fix-reason")) body.reason = box("fix-reason").value;
      A.api("PUT", "/events/" + S.eid + "/rounds/" + S.round.number + "/tables/" + tb.number + "/result", body).then(function (res) {
        f.remove();
        if (res.status === "entered") return A.api("POST", "/events/" + S.eid + "/rounds/" + S.round.number + "/tables/" + tb.number + "/confirm");
      }).then(loadRoundNow, err);
    });
    box("round").prepend(f);
  }

  // ---------------------------------------------------------------- standings
  async function loadStandings() {
    try {
      var s = await A.api("GET", "/events/" + S.eid + "/standings"), out = box("standings");
      out.innerHTML = "";
      if (!s.standings.length) { out.textContent = "—"; return; }
      var names = Object.keys(s.standings[0].points), tbs = s.tiebreaks.filter(function (k) { return names.indexOf(k) < 0; });
      var label = function (k) { var x = t("pt_" + k); return x === "pt_" + k ? k : x; };
      var rows = [el("tr", {}, ["#", t("name"), t("club")].concat(names.map(label), tbs.map(label), [t("prize")]).map(function (h) { return el("th", {text: h}); }))];
      s.standings.forEach(function (r) {
        rows.push(el("tr", {}, [el("td", {"class": "n", text: String(r.rank)}), el("td", {text: r.name}), el("td", {text: r.club})]
          .concat(names.map(function (k) { return el("td", {"class": "n", text: String(r.points[k])}); }),
                  tbs.map(function (k) { return el("td", {"class": "n", text: k in r.tiebreaks ? String(Math.round(r.tiebreaks[k] * 1000) / 1000) : ""}); }),
                  [el("td", {"class": "n", text: r.prize ? String(r.prize) : ""})])));
      });
      out.appendChild(el("table", {}, rows));
      var b = box("bonuses"); b.innerHTML = "";
      if (currentEvent().config.game === "doudizhu") {
        var bon = await A.api("GET", "/events/" + S.eid + "/bonuses");
        b.appendChild(el("h3", {text: t("bonuses") + " (" + bon.currency + ")"}));
        b.appendChild(el("table", {}, [el("tr", {}, [el("th", {text: t("name")}), el("th", {"class": "n", text: t("total")})])].concat(
          bon.players.map(function (p) { return el("tr", {}, [el("td", {text: p.name}), el("td", {"class": "n", text: String(p.total)})]); }))));
      }
    } catch (e) { err(e); }
  }

  // ---------------------------------------------------------------- wiring
  window.onLangChange = function () { applyRole(); if (S.eid) showTab(S.tab); fillEventForm(); };
  document.addEventListener("DOMContentLoaded", function () {
    box("signin-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      signIn(box("token").value.trim()).then(start, err);
    });
    box("password-form").addEventListener("submit", passwordSignIn);
    box("show-staff").addEventListener("click", function () { box("staff").hidden = !box("staff").hidden; if (!box("staff").hidden) loadStaff().catch(err); });
    box("staff-form").addEventListener("submit", addStaff);
    box("show-devices").addEventListener("click", function () { box("devices").hidden = !box("devices").hidden; if (!box("devices").hidden) loadDevices().catch(err); });
    tokenFromLink();
    box("signout").addEventListener("click", function () {
      var done = function () { localStorage.removeItem("organiserToken"); localStorage.removeItem("isSession"); location.reload(); };
      // a password session ends on the server too; a staff link or an API token stays valid until revoked
      if (localStorage.getItem("isSession")) A.api("DELETE", "/organiser/tokens/current").then(done, done); else done();
    });
    box("tsel").addEventListener("change", function () { S.tid = this.value; localStorage.removeItem("eid"); loadEvents().catch(err); });
    box("esel").addEventListener("change", function () { S.eid = this.value; showTab(S.tab); });
    box("show-new-t").addEventListener("click", function () { box("new-t").hidden = !box("new-t").hidden; });
    box("show-new-e").addEventListener("click", function () { box("new-e").hidden = !box("new-e").hidden; fillEventForm(); });
    box("new-t").addEventListener("submit", createTournament);
    box("new-e").addEventListener("submit", createEvent);
    box("ne-game").addEventListener("change", fillEventForm);
    box("ne-method").addEventListener("change", fillOptions);
    box("ne-format").addEventListener("change", fillOptions);
    document.querySelectorAll(".tabs button").forEach(function (b) { b.addEventListener("click", function () { showTab(b.getAttribute("data-tab")); }); });
    box("q").addEventListener("input", function () { clearTimeout(S.qt); S.qt = setTimeout(loadEntries, 300); });
    box("checkin-all").addEventListener("click", function () {
      A.busy(this, function () { return A.api("POST", "/events/" + S.eid + "/check-in-all"); }).then(function (r) {
        loadEntries();
        var zh = window.I18N.lang() === "zh";
        var skipped = r.skipped.map(function (s) { return s.name + "（" + (zh ? s.reason_zh : s.reason_en) + "）"; });
        note(t("checked_in_n", {n: r.checked_in}) + (skipped.length ? " · " + t("skipped") + ": " + skipped.join("、") : ""));
      }, err);
    });
    box("join").addEventListener("click", function () {
      var ids = Array.prototype.map.call(document.querySelectorAll(".seek:checked"), function (c) { return c.value; });
      A.api("POST", "/events/" + S.eid + "/entries/join", {entry_ids: ids}).then(function (r) { note(t("join") + " ✓ " + r.entry.name); loadEntries(); }, err);
    });
    box("csv").addEventListener("click", function () { download("csv"); });
    box("print-list").addEventListener("click", function () {
      A.api("GET", "/events/" + S.eid + "/check-in-list").then(function (html) {
        var w = window.open("", "_blank"); if (w) { w.document.write(html); w.document.close(); w.print(); }
      }, err);
    });
    box("xlsx").addEventListener("click", function () { download("xlsx"); });
    box("draw").addEventListener("click", draw);
    fillEventForm();
    start().catch(function (e) { err(e); if (e.status === 401) { localStorage.removeItem("organiserToken"); box("signin").hidden = false; box("console").hidden = true; } });
  });
})();
