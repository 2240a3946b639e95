// The TypeScript check of the declarations (tests/types, `tsc -p tests/types` in scripts/test-web.sh)
// fails when a declaration is wrong: a copy of web/*.d.ts and tests/types in a temporary folder
// compiles as it is, and stops compiling once a declared type is broken (a part of the breakdown
// declared as text) or made looser than the core (the engine's choices widened to any text, which
// leaves a `@ts-expect-error` line of tests/types/rejected.ts with nothing to reject).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const tsc = join(repo, 'node_modules', '.bin', 'tsc');
const scratch = mkdtempSync(join(tmpdir(), 'memplan-types-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of the declarations and the typed usage, memplan.d.ts passed through `edit`; tsc's answer on it. */
function compile(name, edit = (text) => text) {
  assert.ok(existsSync(tsc), 'node_modules/.bin/tsc is missing: run npm ci (typescript is a devDependency)');
  const root = join(scratch, name);
  cpSync(join(repo, 'tests', 'types'), join(root, 'tests', 'types'), { recursive: true });
  for (const file of ['memplan.d.ts', 'memplan-lite.d.ts', 'memplan-estimate.d.ts'])
    cpSync(join(repo, 'web', file), join(root, 'web', file));
  writeFileSync(join(root, 'package.json'), '{"type": "module"}\n');  // ES modules, as the repository's package.json says
  const dts = join(root, 'web', 'memplan.d.ts');
  const text = readFileSync(dts, 'utf8');
  const edited = edit(text);
  if (name !== 'as-is') assert.notEqual(edited, text, `${name}: the edit changed nothing`);
  writeFileSync(dts, edited);
  const run = spawnSync(tsc, ['-p', join(root, 'tests', 'types')], { encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}

test('the declarations and the typed usage compile as they are', () => {
  const { status, output } = compile('as-is');
  assert.equal(status, 0, output);
});

test('a wrong result type fails the check, naming the line that reads it', () => {
  const { status, output } = compile('wrong-result', (text) =>
    text.replace(/(export interface Breakdown \{[^}]*?)total: number;/, '$1total: string;'));
  assert.notEqual(status, 0, output);
  assert.match(output, /tests\/types\/memplan\.ts\(\d+,\d+\): error TS2345/);
});

test('a configuration type looser than the schema fails the check through a @ts-expect-error line', () => {
  const { status, output } = compile('loose-config', (text) =>
    text.replace("engine?: 'none' | 'vllm' | 'sglang' | 'trtllm';", 'engine?: string;'));
  assert.notEqual(status, 0, output);
  assert.match(output, /tests\/types\/rejected\.ts\(\d+,\d+\): error TS2578: Unused '@ts-expect-error' directive/);
});
