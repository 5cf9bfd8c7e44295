// Before saving: the warnings in words, and the organiser's choice to save anyway or go back to the form.
import { showConfirmDialog } from "vant";
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
