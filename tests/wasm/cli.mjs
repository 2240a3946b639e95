// The native CLI beside the JS API in the node tests: build/ci/memplan (scripts/test-web.sh builds it)
// or $MEMPLAN_CLI.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI = process.env.MEMPLAN_CLI || fileURLToPath(new URL('../../build/ci/memplan', import.meta.url));

/** What `memplan ARGS…` prints, read as JSON. */
export function printedJson(...args) {
  return JSON.parse(execFileSync(CLI, args, { encoding: 'utf8' }));
}
