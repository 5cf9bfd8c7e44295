// One place on the console for what went wrong and what was done: every panel reports here.
import { inject, provide, ref } from "vue";
import { useI18n } from "vue-i18n";
import { errorText } from "../../shared/errors.js";

const KEY = Symbol("report");

export function provideReport() {
  const { t, te } = useI18n();
  const error = ref(""), notice = ref("");
  const report = {
    error(e) { notice.value = ""; error.value = typeof e === "string" ? e : errorText(t, te, e); },
    note(text) { error.value = ""; notice.value = text; },
    clear() { error.value = ""; notice.value = ""; },
  };
  provide(KEY, report);
  return { error, notice, report };
}

export function useReport() {
  return inject(KEY);
}
