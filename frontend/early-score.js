// The table page's two reads, started as soon as the page's HTML is parsed, while its app is still downloading: on
// a slow hall network this saves the round trips (~0.6 s each on "Fast 3G") before the table shows. The build
// inlines this file into score.html (a CSP hash allows exactly it); the app takes the answers over (shared/api.js,
// takeEarly); the paths are those of shared/routes.json (tests/unit/test_frontend_contract.py runs this file).
(function () {
  var q = new URLSearchParams(location.search), e = q.get("e"), r = q.get("r"), t = q.get("t");
  var code = q.get("c") || localStorage.getItem("code:" + e + ":" + r + ":" + t);
  var meta = document.querySelector('meta[name="api"]');
  var api = meta && meta.getAttribute("content");
  window.EARLY = {};
  if (!window.fetch || !api) return;
  function start(name, path, headers) {
    window.EARLY[name] = {url: api + path, answer: fetch(api + path, {headers: headers || {}})};
    window.EARLY[name].answer.catch(function () {});   // a failure is the app's to see, when it asks
  }
  if (e && r && t && code) {
    start("tableView", "/events/" + encodeURIComponent(e) + "/rounds/" + encodeURIComponent(r) + "/tables/" + encodeURIComponent(t),
          {"X-Table-Code": code});
  }
  start("glossary", "/glossary");
})();
