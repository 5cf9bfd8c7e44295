// One confirmation before an action that cannot be taken back (issue 39): the consequence in words, the button
// named by the action itself ("结束第 3 轮", not "确定"), and "返回" to leave it. Resolves true only when confirmed.
import { showConfirmDialog } from "vant";
import "vant/es/dialog/style/index.mjs";

export async function confirmAct(t, { title, message, action, danger = false }) {
  try {
    await showConfirmDialog({ title, message, confirmButtonText: action, cancelButtonText: t("console.go_back"),
                              confirmButtonColor: danger ? "#ee0a24" : undefined, messageAlign: "left",
                              className: "act-confirm" });
    return true;
  } catch (e) {
    return false;
  }
}
