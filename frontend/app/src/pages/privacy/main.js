import { mountPage } from "../../shared/mount.js";
import PrivacyPage from "./PrivacyPage.vue";

mountPage(PrivacyPage);
