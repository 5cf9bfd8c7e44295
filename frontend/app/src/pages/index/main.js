import { mountPage } from "../../shared/mount.js";
import TournamentPage from "./TournamentPage.vue";

mountPage(TournamentPage);
