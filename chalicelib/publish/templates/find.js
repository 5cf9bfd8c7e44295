/* find.html: shows the entries whose name, member's name or pinyin initials hold what is typed (two characters
   at least). Folded as the publisher folds them (lower case, no diacritics: "nguyen" finds "Nguyễn").
   A big field's hits are not in the page (issue 29) but in small shards by gram (issue 43: publish/find_index.py):
   the page fetches the shard its query's first two characters hash to (once), and filters its rows; a "heavy"
   gram's rows are in the shard of one character more. */
(function () {
  var input = document.getElementById("find-q");
  if (!input) return;
  var box = document.getElementById("find-results");
  var none = document.getElementById("find-none"), more = document.getElementById("find-more");
  var SHOWN = 20;
  var hits = [], keys = [], index = box.getAttribute("data-index");
  index = index ? JSON.parse(index) : null;   // a big field: {base, count, v, where, table, bye, sep, seats}
  var own = Object.prototype.hasOwnProperty;   // a gram is data: "constructor" is not heavy
  var shards = {};   // shard number → null while it loads, then {rows: [{keys, row}], heavy: {gram: [count, places]}}
  // every combining mark, as the publisher strips them (services/hall.fold: Unicode category M), not only
  // U+0300–036F; built at run time so a browser without \p{} (before ES2018) still runs the page, with the main blocks
  var MARKS = (function () {
    try { return new RegExp("\\p{M}", "gu"); }
    catch (e) { return /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/g; }
  })();
  function fold(s) {
    s = s.toLowerCase().replace(/đ/g, "d");
    return (s.normalize ? s.normalize("NFD") : s).replace(MARKS, "").replace(/\s+/g, "");
  }
  function keysOf(q) {
    return q.split("|").map(function (k) { return k.replace(/\s+/g, ""); });
  }
  function take(els) {
    hits = els;
    keys = hits.map(function (el) { return keysOf(el.getAttribute("data-q")); });
  }
  // The shard a bigram is in: FNV-1a 32 over its code points, modulo the shard count (publish/find_index.py)
  function shardOf(gram) {
    var h = 0x811c9dc5;
    for (var i = 0; i < gram.length; i++) h = Math.imul(h ^ gram[i].codePointAt(0), 0x01000193) >>> 0;
    return h % index.count;
  }
  function el(tag, cls, text) {
    var x = document.createElement(tag);
    if (cls) x.className = cls;
    if (text) x.textContent = text;
    return x;
  }
  function card(row) {   // [keys, name, members, event, table (0: bye), seats, link]: built as text, never as HTML
    var a = el("a", "card hit");
    a.href = row[6];
    a.setAttribute("data-q", row[0]);
    a.setAttribute("data-testid", "find-hit");
    a.appendChild(el("strong", "", row[1]));
    if (row[2].length) { a.appendChild(document.createTextNode(" ")); a.appendChild(el("span", "muted", row[2].join(index.sep))); }
    a.appendChild(el("span", "where", index.where[row[3]]));
    var seat = el("span", "seat");
    seat.appendChild(el("b", "", row[4] ? index.table.replace("{n}", row[4]) : index.bye));
    if (row[4] && index.seats[row[5]]) seat.appendChild(document.createTextNode(" · " + index.seats[row[5]]));
    a.appendChild(seat);
    return a;
  }
  function load(k) {
    shards[k] = null;
    more.hidden = false;
    more.textContent = box.getAttribute("data-loading");
    var x = new XMLHttpRequest();
    x.open("GET", index.base + k + ".json?v=" + index.v);
    x.onload = function () {
      if (x.status !== 200) { delete shards[k]; return; }
      var got = JSON.parse(x.responseText);
      shards[k] = {heavy: got.heavy, rows: got.hits.map(function (row) { return {keys: keysOf(row[0]), row: row}; })};
      run();
    };
    x.onerror = function () { delete shards[k]; };
    x.send();
  }
  function show(n) {
    none.hidden = n !== 0;
    more.hidden = n <= SHOWN;
    if (n > SHOWN) more.textContent = more.getAttribute("data-text").replace("{n}", n - SHOWN);
  }
  function search(chars, q) {   // a big field: the shard of the query's first two characters holds every hit
    box.textContent = "";
    for (var len = 2; ; len++) {
      var k = shardOf(chars.slice(0, len)), shard = shards[k];
      if (shard === undefined) load(k);
      if (!shard) { none.hidden = true; return; }
      var gram = chars.slice(0, len).join(""), heavy = own.call(shard.heavy, gram) && shard.heavy[gram];
      if (heavy && len < chars.length) continue;   // too many rows hold it: they are indexed by one character more
      var n = 0, frag = document.createDocumentFragment(), rows = shard.rows;
      if (heavy) {   // the query is a heavy gram: its first hits and their count
        n = heavy[0];
        heavy[1].forEach(function (p) { frag.appendChild(card(rows[p].row)); });
      } else {
        for (var i = 0; i < rows.length; i++) {
          if (!rows[i].keys.some(function (key) { return key.indexOf(q) >= 0; })) continue;
          if (++n <= SHOWN) frag.appendChild(card(rows[i].row));
        }
      }
      box.appendChild(frag);
      return show(n);
    }
  }
  function run() {
    var q = fold(input.value), chars = Array.from(q), n = 0;   // characters, not UTF-16 units
    if (index) {
      if (chars.length >= 2) return search(chars, q);
      box.textContent = "";
      none.hidden = more.hidden = true;
      return;
    }
    for (var i = 0; i < hits.length; i++) {
      var ok = chars.length >= 2 && keys[i].some(function (k) { return k.indexOf(q) >= 0; });
      if (ok) n++;
      hits[i].hidden = !ok || n > SHOWN;
    }
    none.hidden = !(chars.length >= 2 && n === 0);
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
