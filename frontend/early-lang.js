// The page's words in the language it will show, downloaded beside its app rather than after it: the build lists
// the page's catalogs (one <meta name="catalog"> each, the default first) and inlines this file before them into
// every page (one CSP hash for all); the choice is shared/i18n.js's (?lang=, then the one chosen on this device, then the browser's languages, then
// the default),
// and the app's import of that catalog takes this download over.
(function () {
  var metas = document.querySelectorAll('meta[name="catalog"]'), by = {}, first = null;
  for (var i = 0; i < metas.length; i++) {
    by[metas[i].getAttribute("data-lang")] = metas[i].getAttribute("content");
    first = first || metas[i].getAttribute("data-lang");
  }
  var asked = null, kept = null, device = [];
  try {
    asked = new URLSearchParams(location.search).get("lang"); kept = localStorage.getItem("lang");
    device = navigator.languages || [navigator.language];
  } catch (e) {}
  var lang = by[asked] ? asked : by[kept] ? kept : null;
  for (var j = 0; !lang && j < device.length; j++) {   // a first visit: the phone's own language (issue 39)
    var d = String(device[j] || "").slice(0, 2).toLowerCase();
    if (by[d]) lang = d;
  }
  lang = lang || first;
  if (!lang) return;
  var link = document.createElement("link");
  link.rel = "modulepreload";
  link.href = by[lang];
  document.head.appendChild(link);
})();
