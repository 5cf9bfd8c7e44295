// A day's registration paid once (POST /registrations/{id}/checkout): what the pay panel starts and asks.
import { call } from "./api.js";

/** start(provider, channel, openid) and check() for ChinaPay, for the registration's items that wait for payment
 *  now (a waitlisted item is never in the payment). `onView` gets every fresh view of the registration. */
export function registrationPayment(regId, token, items, onView = () => {}) {
  const as = { manageToken: token };
  const tracked = new Set(items.filter((i) => i.entry.status === "pending_payment").map((i) => i.entry.id));
  const start = (provider, channel, openid) => call("checkoutRegistration", { params: { id: regId }, as, body: { provider, channel, openid } });
  async function check() {
    const reg = await call("registration", { params: { id: regId }, as });
    onView(reg);
    if (!tracked.size) return reg.payment_state === "paid" ? "paid" : "pending";   // back from paying, already confirmed
    const mine = reg.items.filter((i) => tracked.has(i.entry.id)).map((i) => i.entry.status);
    if (mine.some((s) => s === "pending_payment")) return "pending";
    return mine.length && mine.every((s) => s === "confirmed") ? "paid" : "released";
  }
  const due = items.filter((i) => tracked.has(i.entry.id)).reduce((s, i) => s + (i.amount || 0), 0);
  return { start, check, due, waiting: tracked.size > 0 };
}
