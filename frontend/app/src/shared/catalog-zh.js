// The zh words of a page (its catalog and Vant's), a chunk of their own: a page downloads only the language it shows.
import messages from "../locales/zh-CN.json";
import vant from "vant/es/locale/lang/zh-CN";

export default { messages, vant };
