// JSAPI needs the payer's openid for the AppID the order is placed with: WeChat's silent web authorisation
// (snsapi_base) sends the payer back to `returnTo` with a one-use code, which the API exchanges for the openid.
// Given the tournament, the API authorises at its organiser's account's AppID (a chamber's own, in direct mode),
// so the openid is kept per tournament for the tab's life (sessionStorage): a second payment does not go round
// WeChat again. Without a tournament, the platform's official account: the player page's WeChat sign-in.
import { call } from "./api.js";

const OPENID = "wx-openid", STATE = "wx-oauth-state";
const body = (tournamentId, more) => (tournamentId ? { ...more, tournament_id: tournamentId } : more);

export function knownOpenid(tournamentId = "") {
  return sessionStorage.getItem(`${OPENID}:${tournamentId}`);
}

/** Leaves the page for WeChat's authorisation; resolves never (the page unloads). */
export async function authorize(returnTo, tournamentId = "") {
  const { url, state } = await call("wechatAuthorize", { body: body(tournamentId, { return_to: returnTo }) });
  sessionStorage.setItem(STATE, state);
  location.href = url;
  return new Promise(() => {});
}

/** Back from WeChat with ?code&state: the one-use code (it leaves the address bar), or null when this load is
 *  not such a return (or its state is not the one this tab sent: someone else's link). */
export function codeFromReturn() {
  const q = new URLSearchParams(location.search);
  const code = q.get("code"), state = q.get("state");
  if (!code || !state) return null;
  q.delete("code");
  q.delete("state");
  history.replaceState(null, "", location.pathname + (q.toString() ? `?${q}` : ""));
  if (state !== sessionStorage.getItem(STATE)) return null;
  sessionStorage.removeItem(STATE);
  return code;
}

/** Back from WeChat: the payer's openid for the tournament's AppID, or null. */
export async function openidFromReturn(tournamentId = "") {
  const code = codeFromReturn();
  if (!code) return null;
  const { openid } = await call("wechatOpenid", { body: body(tournamentId, { code }) });
  sessionStorage.setItem(`${OPENID}:${tournamentId}`, openid);
  return openid;
}
