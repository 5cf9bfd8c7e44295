import { mountPage } from "../../shared/mount.js";
import { installOffline } from "../../shared/offline.js";
import ConsolePage from "./ConsolePage.vue";

const mounted = mountPage(ConsolePage, { wide: true });   // in 中文 and English (the build gives the console no vi)
installOffline("organiser", mounted);
