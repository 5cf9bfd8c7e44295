// What a page's first screen does not draw (a dialog, a sheet, a panel below the table, a toast) comes in a chunk
// of its own, downloaded just after the first screen is drawn rather than before it. "Just after", not "when
// first needed": a table phone whose hall Wi-Fi drops after opening must still open its dialogs, so mountPage
// fetches every such chunk as soon as the page is up (prefetchLater).
import { defineAsyncComponent } from "vue";

const loaders = [];

/** A component from a chunk loaded after the first screen. */
export function later(loader) {
  loaders.push(loader);
  return defineAsyncComponent(loader);
}

/** Vant's toasts, from their chunk (loaded after the first screen). */
const toasts = () => import("./toasts.js");
loaders.push(toasts);
export const toast = (message) => toasts().then((m) => m.showToast(message));
export const successToast = (message) => toasts().then((m) => m.showSuccessToast(message));

export function prefetchLater() {
  const go = () => loaders.forEach((l) => l().catch(() => { /* offline: the next use asks again */ }));
  // after the first screen is painted (its styles are not disturbed by these chunks' own before then)
  const idle = () => (window.requestIdleCallback ? window.requestIdleCallback(go, { timeout: 500 }) : setTimeout(go, 100));
  requestAnimationFrame(() => setTimeout(idle, 0));
}
