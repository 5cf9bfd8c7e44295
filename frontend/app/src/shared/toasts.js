// Vant's toasts and their style: a chunk of their own (shared/later.js).
import "vant/es/toast/style/index.mjs";

export { showSuccessToast, showToast } from "vant";
