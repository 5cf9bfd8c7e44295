/* The projector board (hall.html, issue 28). Splits each event's round into pages that fit the screen and shows
   them in turn, then the standings; the clock is worked out here from the published times every half second (so
   it keeps running when the network drops); feed.json is polled for the clock and the announcements, and the
   board reloads itself when the results or the draw changed. No input, no scrolling. */
(function () {
  var body = document.body;
  var words = JSON.parse(document.getElementById("hall-words").textContent);
  var feedUrl = body.getAttribute("data-feed"), version = body.getAttribute("data-version");
  var params = new URLSearchParams(location.search);
  var SECONDS = Math.max(3, +(params.get("s") || 12));
  var POLL = Math.max(2, +(params.get("poll") || 15)) * 1000;
  var slides = [].slice.call(document.querySelectorAll(".slide"));
  var clocks = {};      // event id → its clock as last published
  var pages = [], at = -1;
  slides.forEach(function (s) {
    var c = s.getAttribute("data-clock");
    if (c && s.getAttribute("data-event")) clocks[s.getAttribute("data-event")] = JSON.parse(c);
  });

  function paginate() {
    var out = [];
    slides.forEach(function (slide) {
      slide.hidden = false;
      var rows = [].slice.call(slide.querySelectorAll(".row"));
      rows.forEach(function (r) { r.hidden = false; });
      var box = slide.querySelector(".rows");
      if (!box || !rows.length) { out.push({ slide: slide, rows: rows, i: 1, n: 1 }); slide.hidden = true; return; }
      var cols = getComputedStyle(box).gridTemplateColumns.split(" ").length;
      var tallest = 0;
      rows.forEach(function (r) { tallest = Math.max(tallest, r.getBoundingClientRect().height); });
      var room = slide.getBoundingClientRect().height;
      var per = Math.max(1, Math.floor(room / Math.max(1, tallest))) * cols;
      var count = slide.hasAttribute("data-once") ? 1 : Math.ceil(rows.length / per);
      for (var p = 0; p < count; p++) out.push({ slide: slide, rows: rows.slice(p * per, (p + 1) * per), i: p + 1, n: count });
      slide.hidden = true;
    });
    return out;
  }

  function show(k) {
    if (!pages.length) return;
    at = k % pages.length;
    var page = pages[at];
    slides.forEach(function (s) { s.hidden = s !== page.slide; });
    [].forEach.call(page.slide.querySelectorAll(".row"), function (r) { r.hidden = page.rows.indexOf(r) < 0; });
    document.getElementById("hall-event").textContent = page.slide.getAttribute("data-title") || "";
    document.getElementById("hall-page").textContent =
      page.n > 1 ? words.page.replace("{i}", page.i).replace("{n}", page.n) : "";
    body.setAttribute("data-page", page.slide.getAttribute("data-testid") + ":" + page.i + "/" + page.n);
    tick();
  }

  function two(n) { return (n < 10 ? "0" : "") + n; }
  function hms(ms) {
    var s = Math.max(0, Math.ceil(ms / 1000)), h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
    return (h ? h + ":" + two(m) : two(m)) + ":" + two(s % 60);
  }
  function when(ms) {   // in the tournament's zone, whatever the screen's
    var o = { month: "numeric", day: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23" };
    try { return new Intl.DateTimeFormat(document.documentElement.lang, Object.assign({ timeZone: body.getAttribute("data-tz") }, o)).format(ms); }
    catch (e) { return new Date(ms).toLocaleString(); }
  }

  // The same reading of a published clock as the table phones' (frontend shared/roundClock.js)
  function view(c, game, now) {
    if (!c || (!c.starts_at && !c.ends_at)) return null;
    var starts = c.starts_at ? Date.parse(c.starts_at) : null, ends = c.ends_at ? Date.parse(c.ends_at) : null;
    var more = c.extended_minutes > 0 ? words.extended.replace("{n}", c.extended_minutes)
      : c.extended_minutes < 0 ? words.shortened.replace("{n}", -c.extended_minutes) : "";
    if (c.state === "paused" && c.paused_at && ends)
      return { state: "paused", label: words.paused, time: hms(ends - Date.parse(c.paused_at)), note: more };
    if (starts && now < starts) {
      var to = starts - now;
      if (to >= 24 * 3600000)   // more than a day away: the start's date and time, not "720:13:27"
        return { state: "before", label: words.starts_at, time: when(starts), note: "" };
      return { state: "before", label: words.to_start, time: hms(to), note: to <= 5 * 60000 ? words.seat_now : "" };
    }
    if (ends && now < ends)
      return { state: ends - now <= 5 * 60000 ? "soon" : "running", label: words.left, time: hms(ends - now), note: more };
    if (ends) return { state: "up", label: words.time_up, time: "00:00", note: game === "doudizhu" ? words.ddz_count : words.finish_deal };
    return null;
  }

  function tick() {
    var box = document.getElementById("hall-clock");
    var page = pages[at];
    var eid = page && page.slide.getAttribute("data-event");
    var v = eid ? view(clocks[eid], page.slide.getAttribute("data-game"), Date.now()) : null;
    box.hidden = !v;
    if (!v) return;
    box.className = "hall-clock " + v.state;
    box.setAttribute("data-state", v.state);
    box.querySelector(".clock-label").textContent = v.label;
    box.querySelector(".clock-time").textContent = v.time;
    box.querySelector(".clock-note").textContent = v.note || "";
  }

  function announce(list) {
    var box = document.getElementById("hall-announcements");
    while (box.firstChild) box.removeChild(box.firstChild);
    (list || []).slice(0, 3).forEach(function (a) {
      var p = document.createElement("p");
      p.setAttribute("data-id", a.id);
      p.textContent = a.text;
      box.appendChild(p);
    });
  }

  function poll() {
    var x = new XMLHttpRequest();
    x.open("GET", feedUrl + "?_=" + Date.now());
    x.timeout = 10000;
    x.onload = function () {
      if (x.status !== 200) return;
      try {
        var f = JSON.parse(x.responseText);
        var moved = f.hall_version || f.version;   // the board's own version (issue 29), else the tournament's
        if (moved && moved !== version) { location.reload(); return; }
        // a clock no longer published (its round closed, the event over) stops: nothing to count down
        (f.events || []).forEach(function (e) { clocks[e.id] = e.clock || null; });
        var before = document.getElementById("hall-announcements").textContent;
        announce(f.announcements);
        if (document.getElementById("hall-announcements").textContent !== before) { pages = paginate(); show(at); }
        tick();
      } catch (e) { /* a half-written feed: the next poll */ }
    };
    x.send();
  }

  pages = paginate();
  show(0);
  setInterval(function () { show(at + 1); }, SECONDS * 1000);
  setInterval(tick, 500);
  setInterval(poll, POLL);
  window.addEventListener("resize", function () { pages = paginate(); show(0); });
})();
