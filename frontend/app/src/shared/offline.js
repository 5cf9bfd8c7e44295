// The offline pages (the table page, the console) install their own service worker, scoped to the page itself:
// frontend/vite.config.mjs builds it (Workbox) with exactly the page's files, so the page opens again with the
// hall's Wi-Fi down. Installed only where browsers allow workers: https, or http on this machine (127.0.0.1 /
// localhost); a venue laptop served over its LAN address on plain http gets no worker, and the page works as
// before, online.
// `mounted`: the page's mountPage(). The worker's downloads wait for the first screen, the page's load and an idle
// moment: on "Fast 3G" a precache started at the load event delayed the table's first render by 0.15 s
// (bench/frontend.py), and after that moment most of its files come from the browser's cache.
export function installOffline(page, mounted) {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  const go = () => {
    navigator.serviceWorker.register(`./sw-${page}.js`, { scope: `./${page}.html` }).catch(() => { /* online only */ });
    // asks the browser not to clear this site's storage (the queue, the kept table) when space runs short
    if (navigator.storage && navigator.storage.persist) navigator.storage.persist().catch(() => {});
  };
  const idle = () => (window.requestIdleCallback ? window.requestIdleCallback(go, { timeout: 3000 }) : setTimeout(go, 1000));
  const loaded = () => (document.readyState === "complete" ? idle() : window.addEventListener("load", idle, { once: true }));
  Promise.resolve(mounted).then(loaded, loaded);
}
