// JSAPI needs the payer's openid for the merchant's official account: WeChat's silent web authorisation
// (snsapi_base) sends the payer back to `returnTo` with a one-use code, which the API exchanges for the openid.
// Kept for the tab's life (sessionStorage): a second payment does not go round WeChat again.
import { call } from "./api.js";

const OPENID = "wx-openid", STATE = "wx-oauth-state";

export function knownOpenid() {
  return sessionStorage.getItem(OPENID);
}

/** Leaves the page for WeChat's authorisation; resolves never (the page unloads). */
export async function authorize(returnTo) {
  const { url, state } = await call("wechatAuthorize", { body: { return_to: returnTo } });
  sessionStorage.setItem(STATE, state);
  location.href = url;
  return new Promise(() => {});
}

/** Back from WeChat with ?code&state: the openid (the code leaves the address bar), or null when this load
 *  is not such a return (or its state is not the one this tab sent: someone else's link). */
export async function openidFromReturn() {
  const q = new URLSearchParams(location.search);
  const code = q.get("code"), state = q.get("state");
  if (!code || !state) return null;
  q.delete("code");
  q.delete("state");
  history.replaceState(null, "", location.pathname + (q.toString() ? `?${q}` : ""));
  if (state !== sessionStorage.getItem(STATE)) return null;
  sessionStorage.removeItem(STATE);
  const { openid } = await call("wechatOpenid", { body: { code } });
  sessionStorage.setItem(OPENID, openid);
  return openid;
}
