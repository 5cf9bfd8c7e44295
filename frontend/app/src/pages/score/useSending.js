// Sending the table's result through the outbox, and what the page says about it: 未发送 (kept, the next try
// at …), 发送中, 已发送 (with the server's version). Retries follow the outbox's back-off and the server's
// Retry-After; a definite no (a 4xx) is handed back to the page to show, the typed deals kept.
import { onBeforeUnmount, ref } from "vue";
import { outbox } from "../../shared/api.js";

export function useSending(key, { onSent, onRefused }) {
  const state = ref(outbox.get(key()) ? "unsent" : null);   // null | "unsent" | "sending" | "sent"
  const nextAt = ref(outbox.due(key()));
  const lastError = ref(null);
  let timer = null;

  function schedule() {
    clearTimeout(timer);
    const at = outbox.due(key());
    nextAt.value = at;
    if (at === null) return;
    timer = setTimeout(send, Math.max(0, at - Date.now()));
  }

  async function send() {
    if (state.value === "sending" || !outbox.get(key())) return;
    clearTimeout(timer);
    state.value = "sending";
    try {
      const out = await outbox.flush(key());
      if (out.state === "later") {
        state.value = "unsent";
        lastError.value = out.error;
        schedule();
        return;
      }
      if (out.state === "empty") { state.value = null; return; }
      state.value = "sent";
      lastError.value = null;
      await onSent(out.data);
    } catch (e) {
      state.value = null;
      await onRefused(e);
    }
  }

  function put(req) {
    outbox.put(key(), req);
    state.value = "unsent";
    return send();
  }

  const now = () => { if (outbox.get(key())) { outbox.put(key(), { ...outbox.get(key()), nextAt: 0 }); send(); } };
  window.addEventListener("online", now);
  onBeforeUnmount(() => { clearTimeout(timer); window.removeEventListener("online", now); });
  return { state, nextAt, lastError, put, send, resume: () => (outbox.get(key()) ? send() : null) };
}
