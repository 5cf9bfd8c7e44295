// The offline pages (the table page, the console) install their own service worker, scoped to the page itself:
// frontend/vite.config.mjs builds it (Workbox) with exactly the page's files, so the page opens again with the
// hall's Wi-Fi down. Installed once the page has loaded (its downloads never wait for the worker's), and only where
// browsers allow workers: https, or http on this machine (127.0.0.1 / localhost); a venue laptop served over its
// LAN address on plain http gets no worker, and the page works as before, online.
export function installOffline(page) {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  const go = () => {
    navigator.serviceWorker.register(`./sw-${page}.js`, { scope: `./${page}.html` }).catch(() => { /* online only */ });
    // asks the browser not to clear this site's storage (the queue, the kept table) when space runs short
    if (navigator.storage && navigator.storage.persist) navigator.storage.persist().catch(() => {});
  };
  if (document.readyState === "complete") go();
  else window.addEventListener("load", go, { once: true });
}
