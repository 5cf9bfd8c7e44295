import { mountPage } from "../../shared/mount.js";
import ScorePage from "./ScorePage.vue";

mountPage(ScorePage, { languages: ["zh", "en", "vi"] });
