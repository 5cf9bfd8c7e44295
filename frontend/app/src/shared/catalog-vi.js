// The vi words of a page (its catalog and Vant's), a chunk of their own: a page downloads only the language it shows.
import messages from "../locales/vi.json";
import vant from "vant/es/locale/lang/vi-VN";

export default { messages, vant };
