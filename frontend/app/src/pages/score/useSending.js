// Sending the table's result through the outbox, and what the page says about it: 未发送 (kept, the next try
// at …), 发送中, 已发送 (with the server's version). Retries follow the outbox's back-off and the server's
// Retry-After; a definite no (a 4xx) is handed back to the page to show, the typed deals kept. The outbox is read
// when the page opens (resume): a result queued before a reload, even one made without network, is shown as
// 未发送 and sent as soon as the network is back (the browser's "online", or the next try).
import { onBeforeUnmount, ref } from "vue";
import { outbox } from "../../shared/outbox.js";

export function useSending(key, { onSent, onRefused }) {
  const state = ref(null);   // null | "unsent" | "sending" | "sent"
  const nextAt = ref(null);
  const lastError = ref(null);
  let timer = null;
  let busy = false;          // set before the first await: a second caller (a timer, "online") leaves at once

  async function schedule() {
    clearTimeout(timer);
    const at = await outbox.due(key());
    nextAt.value = at;
    if (at === null) return;
    timer = setTimeout(send, Math.max(0, at - Date.now()));
  }

  async function send() {
    if (busy) return;
    busy = true;
    clearTimeout(timer);
    try {
      if (!(await outbox.get(key()))) return;
      state.value = "sending";
      const out = await outbox.flush(key());
      if (out.state === "later") {
        state.value = "unsent";
        lastError.value = out.error;
        await schedule();
        return;
      }
      if (out.state === "empty") { state.value = null; return; }
      state.value = "sent";
      nextAt.value = null;
      lastError.value = null;
      await onSent(out.data);
    } catch (e) {
      state.value = null;
      nextAt.value = null;
      await onRefused(e);
    } finally {
      busy = false;
    }
  }

  async function put(req) {
    await outbox.put(key(), req);
    state.value = "unsent";
    return send();
  }

  const now = () => send();     // the network is back: no waiting for the back-off
  window.addEventListener("online", now);
  onBeforeUnmount(() => { clearTimeout(timer); window.removeEventListener("online", now); });

  /** The page is open: a result kept from before is shown as 未发送 and sent now. */
  async function resume() {
    const req = await outbox.get(key());
    if (!req) return null;
    state.value = "unsent";
    nextAt.value = req.nextAt || 0;
    return send();
  }
  return { state, nextAt, lastError, put, send, resume };
}
