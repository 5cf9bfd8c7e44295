// 再试一次 after a checkout that could not start (issue 40): the tournament's hosted page again, the same order.
// Failing again, the reason stays on screen (done.checkoutError); the registration and its place stand meanwhile.
import { ref } from "vue";
import { call } from "./api.js";

export function useRetryCheckout(done, operation) {
  const retrying = ref(false);
  async function retryCheckout() {
    retrying.value = true;
    try {
      const answer = await call(operation, { params: { id: done.value.id }, as: { manageToken: done.value.token }, body: {} });
      if (answer.checkout_url) { location.href = answer.checkout_url; return; }
    } catch (e) { done.value = { ...done.value, checkoutError: (e && e.code) || "payment_unavailable" }; }
    finally { retrying.value = false; }
  }
  return { retrying, retryCheckout };
}
