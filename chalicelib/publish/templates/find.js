/* find.html: shows the entries whose name, member's name or pinyin initials hold what is typed (two characters
   at least). Folded as the publisher folds them (lower case, no diacritics: "nguyen" finds "Nguyễn").
   A big field's hits are not in the page but in find.json beside it (issue 29): fetched once, as one types. */
(function () {
  var input = document.getElementById("find-q");
  if (!input) return;
  var box = document.getElementById("find-results");
  var none = document.getElementById("find-none"), more = document.getElementById("find-more");
  var SHOWN = 20;
  var hits = [], keys = [], index = box.getAttribute("data-index"), loading = false;
  function fold(s) {
    s = s.toLowerCase().replace(/đ/g, "d");
    return (s.normalize ? s.normalize("NFD") : s).replace(/[\u0300-\u036f]/g, "").replace(/\s+/g, "");
  }
  function keysOf(q) {
    return q.split("|").map(function (k) { return k.replace(/\s+/g, ""); });
  }
  function take(els) {
    hits = els;
    keys = hits.map(function (el) { return keysOf(el.getAttribute("data-q")); });
  }
  function el(tag, cls, text) {
    var x = document.createElement(tag);
    if (cls) x.className = cls;
    if (text) x.textContent = text;
    return x;
  }
  function card(row) {   // [keys, name, members, where, table, seat, link]: built as text, never as HTML
    var a = el("a", "card hit");
    a.href = row[6];
    a.setAttribute("data-q", row[0]);
    a.setAttribute("data-testid", "find-hit");
    a.hidden = true;
    a.appendChild(el("strong", "", row[1]));
    if (row[2]) { a.appendChild(document.createTextNode(" ")); a.appendChild(el("span", "muted", row[2])); }
    a.appendChild(el("span", "where", row[3]));
    var seat = el("span", "seat");
    seat.appendChild(el("b", "", row[4]));
    if (row[5]) seat.appendChild(document.createTextNode(" · " + row[5]));
    a.appendChild(seat);
    return a;
  }
  function load() {
    if (loading) return;
    loading = true;
    more.hidden = false;
    more.textContent = box.getAttribute("data-loading");
    var x = new XMLHttpRequest();
    x.open("GET", index);
    x.onload = function () {
      if (x.status !== 200) { loading = false; return; }
      var rows = JSON.parse(x.responseText).hits || [];
      var els = rows.map(card);
      var frag = document.createDocumentFragment();
      els.forEach(function (a) { frag.appendChild(a); });
      box.appendChild(frag);
      index = null;
      take(els);
      run();
    };
    x.onerror = function () { loading = false; };
    x.send();
  }
  function run() {
    var q = fold(input.value), n = 0;
    if (index) {   // not fetched yet
      if (q.length >= 2) load();
      return;
    }
    for (var i = 0; i < hits.length; i++) {
      var ok = q.length >= 2 && keys[i].some(function (k) { return k.indexOf(q) >= 0; });
      if (ok) n++;
      hits[i].hidden = !ok || n > SHOWN;
    }
    none.hidden = !(q.length >= 2 && n === 0);
    more.hidden = n <= SHOWN;
    if (n > SHOWN) more.textContent = more.getAttribute("data-text").replace("{n}", n - SHOWN);
  }
  if (!index) take([].slice.call(document.querySelectorAll("#find-results .hit")));
  input.addEventListener("input", run);
  document.querySelector("[data-find]").addEventListener("submit", function (e) { e.preventDefault(); input.blur(); });
  var given = new URLSearchParams(location.search).get("q");
  if (given) input.value = given;
  run();
})();
