// How each breakdown row is computed, through the JS API (mp.explanations() of dist/memplan.js,
// core/data/explanations.json): every row per run mode, in the order of per_gpu, the same as the native
// CLI prints (`memplan explain --json`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { load } from '../../dist/memplan.js';
import { printedJson } from './cli.mjs';

const mp = await load();

test('explanations(): every breakdown row per run mode, in the order of per_gpu, as the CLI prints them', () => {
  const explanations = mp.explanations();
  assert.equal(mp.explanations(), explanations);
  assert.ok(Object.isFrozen(explanations.train[0]));
  const keys = Object.keys(mp.estimate({ model: { preset: 'llama-3.2-1b' } }).per_gpu);
  for (const mode of ['train', 'infer']) {
    assert.deepEqual(explanations[mode].map((r) => r.key), keys, mode);
    for (const row of explanations[mode]) assert.ok(row.label && row.formula && row.source, `${mode} ${row.key}`);
  }
  assert.equal(explanations.train[6].formula, 'Training keeps no KV cache.');
  assert.match(explanations.infer[6].formula, /^2 \(K and V\) × layers on this stage/);
  assert.equal(explanations.infer.at(-1).label, 'Total');
  assert.deepEqual(explanations, printedJson('explain', '--json').modes);
});
