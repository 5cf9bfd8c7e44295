import { mountPage } from "../../shared/mount.js";
import ConsolePage from "./ConsolePage.vue";

mountPage(ConsolePage, { languages: ["zh", "en"], wide: true });   // the console is in 中文 and English
