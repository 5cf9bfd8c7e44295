// Before saving: the warnings in words, and the organiser's choice to save anyway or go back to the form.
import { showConfirmDialog, showDialog } from "vant";
import "vant/es/dialog/style/index.mjs";

export async function confirmWarnings(t, list) {
  if (!list.length) return true;
  try {
    await showConfirmDialog({
      title: t("console.warn_title"),
      message: list.map((w) => `· ${w.label ? t("console.kv", { label: w.label, value: t(`console.${w.key}`, w.params) })
                                     : t(`console.${w.key}`, w.params)}`).join("\n"),
      messageAlign: "left", confirmButtonText: t("console.save_anyway"), cancelButtonText: t("console.back_to_form"),
      className: "setup-warnings",
    });
    return true;
  } catch (e) {
    return false;
  }
}

// After saving: the API's own warnings (services/setup_warnings.py, stable codes worded as console.warn_<code>) that
// the check before saving did not already show — e.g. a tournament's new dates against its events' schedules.
export function showSavedWarnings(t, answered, seen = []) {
  const shown = new Set(seen.map((w) => w.key));
  const unseen = (answered || []).filter((w) => !shown.has(`warn_${w.code}`));
  if (!unseen.length) return;
  showDialog({
    title: t("console.saved_warn_title"),
    message: unseen.map((w) => `· ${t(`console.warn_${w.code}`, w.params || {})}`).join("\n"),
    messageAlign: "left", className: "saved-warnings",
  });
}
