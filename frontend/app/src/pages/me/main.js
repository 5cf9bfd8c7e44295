import { mountPage } from "../../shared/mount.js";
import MePage from "./MePage.vue";

mountPage(MePage);
