import { mountPage } from "../../shared/mount.js";
import { installOffline } from "../../shared/offline.js";
import ScorePage from "./ScorePage.vue";
import { firstTable } from "./useTable.js";

const mounted = mountPage(ScorePage, { first: firstTable });
installOffline("score", mounted);
