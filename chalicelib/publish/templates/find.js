/* find.html: shows the entries whose name, member's name or pinyin initials hold what is typed (two characters
   at least). Folded as the publisher folds them (lower case, no diacritics: "nguyen" finds "Nguyễn"). */
(function () {
  var input = document.getElementById("find-q");
  if (!input) return;
  var hits = [].slice.call(document.querySelectorAll("#find-results .hit"));
  var none = document.getElementById("find-none"), more = document.getElementById("find-more");
  var SHOWN = 20;
  var keys = hits.map(function (el) {
    return el.getAttribute("data-q").split("|").map(function (k) { return k.replace(/\s+/g, ""); });
  });
  function fold(s) {
    s = s.toLowerCase().replace(/đ/g, "d");
    return (s.normalize ? s.normalize("NFD") : s).replace(/[\u0300-\u036f]/g, "").replace(/\s+/g, "");
  }
  function run() {
    var q = fold(input.value), n = 0;
    for (var i = 0; i < hits.length; i++) {
      var ok = q.length >= 2 && keys[i].some(function (k) { return k.indexOf(q) >= 0; });
      if (ok) n++;
      hits[i].hidden = !ok || n > SHOWN;
    }
    none.hidden = !(q.length >= 2 && n === 0);
    more.hidden = n <= SHOWN;
    if (n > SHOWN) more.textContent = more.getAttribute("data-text").replace("{n}", n - SHOWN);
  }
  input.addEventListener("input", run);
  document.querySelector("[data-find]").addEventListener("submit", function (e) { e.preventDefault(); input.blur(); });
  var given = new URLSearchParams(location.search).get("q");
  if (given) input.value = given;
  run();
})();
