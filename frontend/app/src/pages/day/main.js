import { mountPage } from "../../shared/mount.js";
import DayPage from "./DayPage.vue";

mountPage(DayPage);
