// memplan page — the first answer computed at build time (first-result.js). scripts/assemble-web.mjs
// replaces this module in the bundles with the answer it computes (first-result.js startingAnswer); in
// the source it is null, so the page unbundled draws nothing before the core has loaded.
export default null;
