/* Published pages: reload when the event changes after this page was opened (the first poll sets the baseline,
   so a page that was not rewritten never loops), the print link of the prize list, and the tournament's time zone
   named beside its times when the reader's device is in another zone. A file of its own, not an
   inline script: the site's Content-Security-Policy allows scripts from the site only. */
(function () {
  var me = document.currentScript, url = me && me.getAttribute("data-feed"), seen = null;
  nameZone(me && me.getAttribute("data-tz"));
  var buttons = document.querySelectorAll("[data-print]");
  for (var i = 0; i < buttons.length; i++) {
    buttons[i].addEventListener("click", function (e) { e.preventDefault(); window.print(); });
  }
  drawPlaces();
  if (!url || !window.XMLHttpRequest) return;
  function typing() {   // find.html: never reload under someone's fingers; the next poll will
    var box = document.querySelector("[data-find] input");
    return !!(box && box.value);
  }
  function poll() {
    var x = new XMLHttpRequest();
    x.open("GET", url + "?_=" + Date.now());
    x.onload = function () {
      try {
        var f = JSON.parse(x.responseText);
        if (seen === null) seen = f.version;
        else if (f.version && f.version !== seen && !typing()) location.reload();
      } catch (e) { /* a half-written feed: next poll */ }
    };
    x.send();
  }
  poll();
  setInterval(poll, 15000);
})();

/* Every time on a published page is the tournament's (written so: the page reads right with no JavaScript). A
   device in another zone gets the zone named beside each time marked data-zone, as the app does: "(中国标准时间)"
   on a Chinese page, "(GMT+8)" in English and Vietnamese (issue 39: a Vietnam-time phone read 14:00 as its own). */
function nameZone(tz) {
  if (!tz || !window.Intl || !Intl.DateTimeFormat) return;
  try {
    var now = new Date(), lang = document.documentElement.lang || "zh-CN";
    var offset = function (zone) {
      var o = zone ? { timeZone: zone, timeZoneName: "longOffset" } : { timeZoneName: "longOffset" };
      var parts = new Intl.DateTimeFormat("en", o).formatToParts(now);
      for (var i = 0; i < parts.length; i++) if (parts[i].type === "timeZoneName") return parts[i].value;
      return "";
    };
    if (offset(tz) === offset(null)) return;
    var parts = new Intl.DateTimeFormat(lang, { timeZone: tz, timeZoneName: lang.indexOf("zh") === 0 ? "long" : "short" })
      .formatToParts(now), name = "";
    for (var i = 0; i < parts.length; i++) if (parts[i].type === "timeZoneName") name = parts[i].value;
    if (!name) return;
    var marked = document.querySelectorAll("[data-zone]");
    for (var k = 0; k < marked.length; k++) {
      var note = document.createElement("span");
      note.className = "zone";
      note.textContent = " (" + name + ")";
      marked[k].appendChild(note);
    }
  } catch (e) { /* an unknown zone or an old browser: the times stay as written, in the tournament's zone */ }
}

/* An entry page's place chart (issue 43): in places-<k>.json beside the page, the charts of about a hundred
   entries, so that a round's close rewrites those files and not every entry page. The section stays hidden until
   its chart is in (there is none before two rounds are closed); without JavaScript the page links the standings. */
function drawPlaces() {
  var box = document.querySelector("section[data-places]");
  if (!box || !window.XMLHttpRequest) return;
  var x = new XMLHttpRequest();
  x.open("GET", box.getAttribute("data-places"));
  x.onload = function () {
    try {
      var svg = x.status === 200 && JSON.parse(x.responseText).charts[box.getAttribute("data-entry")];
      if (!svg) return;
      box.querySelector("figure").innerHTML = svg;   // the publisher's own markup, escaped as the page's
      box.hidden = false;
    } catch (e) { /* no file yet, or a half-written one: the page without its chart */ }
  };
  x.send();
}
