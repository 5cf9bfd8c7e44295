import { mountPage } from "../../shared/mount.js";
import RegisterPage from "./RegisterPage.vue";

mountPage(RegisterPage);
