/* Published pages: reload when the event changes after this page was opened (the first poll sets the baseline,
   so a page that was not rewritten never loops), and the print link of the prize list. A file of its own, not an
   inline script: the site's Content-Security-Policy allows scripts from the site only. */
(function () {
  var me = document.currentScript, url = me && me.getAttribute("data-feed"), seen = null;
  var buttons = document.querySelectorAll("[data-print]");
  for (var i = 0; i < buttons.length; i++) {
    buttons[i].addEventListener("click", function (e) { e.preventDefault(); window.print(); });
  }
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
