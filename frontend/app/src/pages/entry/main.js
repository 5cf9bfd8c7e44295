import { mountPage } from "../../shared/mount.js";
import EntryPage from "./EntryPage.vue";

mountPage(EntryPage);
