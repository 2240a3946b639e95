#!/usr/bin/env bash
# Tests of the WebAssembly module and the page: builds dist/, compiles the API's TypeScript declarations
# (web/*.d.ts) with the typed usage of tests/types (tsc, no output), then runs the node:test unit tests of the
# page's pure modules (tests/web: URL state, configuration, formatters, chart geometry, the worker
# protocol, the page against the core's schema), the tests of the shipped module (tests/wasm, including
# the differential test against the native CLI) and the browser tests (tests/e2e, Debian's Chromium via
# playwright-core: the page, and the <memplan-estimate> element on plain HTML and on MkDocs, Sphinx and
# VitePress sites), then tests the npm package (tests/package) and checks the page and element budgets.
#   scripts/test-web.sh            everything
#   scripts/test-web.sh --js-only  rebuild only the page from the WASM already built (after a web/ edit)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build-web.sh "$@"
if [[ -z "${MEMPLAN_CLI:-}" ]]; then
  # The differential test needs the native CLI built from the same sources as the WASM.
  [[ -f build/ci/CMakeCache.txt ]] || cmake --preset ci >/dev/null
  cmake --build --preset ci -j"$(nproc)" --target memplan
fi
echo "== the API's TypeScript declarations (tsc -p tests/types: web/*.d.ts read by the typed usage in tests/types)"
if [[ ! -x node_modules/.bin/tsc ]]; then echo "node_modules/.bin/tsc is missing: run npm ci (typescript is a devDependency)" >&2; exit 1; fi
node_modules/.bin/tsc -p tests/types
echo "== unit tests of the page's modules"
node --test tests/web/*.test.mjs
echo "== node tests of dist/memplan.js"
node --test tests/wasm/*.test.mjs
echo "== browser tests of the page"
node --test tests/e2e/*.test.mjs
echo "== the npm package (npm pack, installed in throw-away projects: Node, esbuild, Vite)"
node --test tests/package/*.test.mjs
echo "== budgets"
node scripts/measure-budgets.mjs --check
echo "== the modules' size by part (scripts/wasm-size.py; informs, checks nothing)"
python3 scripts/wasm-size.py build/wasm/wasm/memplan-core.wasm build/wasm/wasm/memplan-estimate-core.wasm
