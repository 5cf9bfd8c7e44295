// Who is signed in: the organiser (password session or API token) or a staff member from a sign-in link.
// The token lives in this browser only (localStorage); a staff link carries it in the fragment, never sent.
import { ref } from "vue";
import { call } from "../../shared/api.js";

export const TABS_BY_ROLE = { owner: ["entries", "run", "standings", "import", "hall", "messages"],
                              director: ["entries", "run", "standings", "import", "hall", "messages"],
                              desk: ["entries", "import"], scorer: ["run", "standings"] };

export function useSession() {
  const me = ref(null);

  function tokenFromLink() {
    const m = /staff=([A-Za-z0-9_-]+)/.exec(location.hash || "");
    if (!m) return;
    localStorage.setItem("organiserToken", m[1]);
    localStorage.removeItem("isSession");
    localStorage.removeItem("tid");
    localStorage.removeItem("eid");
    history.replaceState(null, "", location.pathname + location.search);   // the token leaves the address bar
  }
  async function resume() {
    tokenFromLink();
    if (!localStorage.getItem("organiserToken")) return null;
    try {
      me.value = await call("me");
    } catch (e) {
      if (e.status === 401) localStorage.removeItem("organiserToken");
      throw e;
    }
    return me.value;
  }
  async function withToken(token) {
    localStorage.setItem("organiserToken", token);
    localStorage.removeItem("isSession");
    try { me.value = await call("me"); } catch (e) { localStorage.removeItem("organiserToken"); throw e; }
  }
  async function withPassword(login, password) {
    const s = await call("signIn", { body: { login, password, device: navigator.userAgent.slice(0, 80) } });
    await withToken(s.token);
    localStorage.setItem("isSession", "1");
  }
  async function signOut() {
    // a password session ends on the server too; a staff link or an API token stays valid until revoked
    if (localStorage.getItem("isSession")) { try { await call("signOut"); } catch (e) { /* signed out here anyway */ } }
    localStorage.removeItem("organiserToken");
    localStorage.removeItem("isSession");
    me.value = null;
  }
  const role = () => (me.value && me.value.role) || "owner";
  return { me, resume, withToken, withPassword, signOut, role };
}
