// Builds every page of frontend/app/ into frontend/dist/, one Vite build per page (see pageConfig for why).
// Usage: node frontend/build.mjs [--logLevel warn]
import { build } from "vite";
import { finish, pageConfig, pages } from "./vite.config.mjs";

const at = process.argv.indexOf("--logLevel");
const logLevel = at > 0 ? process.argv[at + 1] : "info";
for (const [i, page] of pages.entries()) await build(pageConfig(page, { first: i === 0, logLevel }));
await finish();
