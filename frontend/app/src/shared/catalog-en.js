// The en words of a page (its catalog and Vant's), a chunk of their own: a page downloads only the language it shows.
import messages from "../locales/en.json";
import vant from "vant/es/locale/lang/en-US";

export default { messages, vant };
