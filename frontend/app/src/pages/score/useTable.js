// The table as this phone sees it: loaded once, then followed with a cheap poll (If-None-Match → 304 when
// nothing changed) so the other phone's entry, confirmation or dispute and the referee's ruling arrive by themselves.
import { onBeforeUnmount, ref } from "vue";
import { call } from "../../shared/api.js";

export function useTable(where, code) {
  const view = ref(null);
  let etag = null;
  let timer = null;

  const opts = () => ({ params: where, as: { tableCode: code.value }, onEtag: (e) => { etag = e; } });

  async function load() {
    etag = null;
    view.value = await call("tableView", opts());
    return view.value;
  }

  // `busy()` says the phone is in the middle of typing deals: a still-pending table is not re-rendered under it.
  // A view that never loaded (the store down when the page opened) is asked for again on every tick.
  function follow(busy, every = 4000) {
    clearInterval(timer);
    timer = setInterval(async () => {
      if (document.hidden) return;
      if (!view.value) { if (code.value) { try { await load(); } catch (e) { /* still down */ } } return; }
      try {
        const next = await call("tableView", { ...opts(), etag, retries: 1 });
        if (!next) return;
        const before = view.value.table;
        const moved = next.table.version !== before.version || next.table.status !== before.status;
        if (moved && busy() && next.table.status === "pending") return;
        view.value = next;      // the table moved, or something beside it did (an appeal's ruling)
      } catch (e) { /* offline for a moment: the next tick tries again */ }
    }, every);
  }
  onBeforeUnmount(() => clearInterval(timer));
  return { view, load, follow };
}
