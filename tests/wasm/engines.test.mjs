// The serving engines through the JS API (mp.engines() of dist/memplan.js): each engine's entry of the
// core (label, upstream source, share field and flag, budget formula) and the budget's terms, the same as
// the native CLI prints (`memplan engines --json`), and what the page's serving panel reads.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemplanError, load } from '../../dist/memplan.js';
import { load as loadLite } from '../../dist/memplan-lite.js';
import { printedJson } from './cli.mjs';

const mp = await load();

test('engines(): vLLM, SGLang and TensorRT-LLM with their share fields, parsed once and frozen', () => {
  const described = mp.engines();
  assert.equal(mp.engines(), described);
  assert.ok(Object.isFrozen(described) && Object.isFrozen(described.engines[0]));
  assert.deepEqual(described.engines.map((e) => [e.id, e.label, e.share_field, e.share_flag]), [
    ['vllm', 'vLLM', 'infer.gpu_memory_utilization_permille', '--gpu-memory-utilization'],
    ['sglang', 'SGLang', 'infer.mem_fraction_static_permille', '--mem-fraction-static'],
    ['trtllm', 'TensorRT-LLM', 'infer.free_gpu_memory_fraction_permille', 'free_gpu_memory_fraction'],
  ]);
  // Every engine name of the schema is described, and every share field is a schema field.
  const fields = new Map(mp.schema().fields.map((f) => [f.path, f]));
  assert.deepEqual(fields.get('infer.engine').choices.filter((c) => c !== 'none'), described.engines.map((e) => e.id));
  for (const e of described.engines) assert.ok(fields.has(e.share_field), e.share_field);
  assert.deepEqual(described, printedJson('engines', '--json'));
});

test("engines(): the budget's terms are the serving result's fields, and the result names its engine's source", () => {
  const { engines, budget_terms: terms } = mp.engines();
  for (const e of engines) {
    const config = { mode: 'infer', model: { preset: 'llama-3-8b' }, gpu: { memory_bytes: 80e9 },
      infer: { engine: e.id, mem_fraction_static_permille: 880 } };
    const s = mp.estimate(config).serving;
    assert.equal(s.engine_version, e.version);
    for (const t of terms) assert.equal(typeof s[t.key], 'number', `${e.id}: serving.${t.key}`);
  }
});

test('frameworks(): every train.framework value with its log figure, pinned version and sources, as the CLI lists them', () => {
  const listed = mp.frameworks();
  assert.equal(mp.frameworks(), listed);
  assert.ok(Object.isFrozen(listed) && Object.isFrozen(listed.frameworks[0]));
  const fields = new Map(mp.schema().fields.map((f) => [f.path, f]));
  assert.deepEqual(listed.frameworks.map((f) => f.id), fields.get('train.framework').choices);
  const titan = listed.frameworks.find((f) => f.id === 'torchtitan');
  assert.equal(titan.logs, 'reserved');
  assert.equal(titan.log_unit, 'GiB');
  assert.match(titan.version, /^pytorch\/torchtitan at [0-9a-f]{40}$/);
  // The estimate names the same framework with the same figure; the range is the listed band's.
  const r = mp.estimate({ mode: 'train', model: { preset: 'llama-3.1-8b' }, parallel: { gpus: 8, zero_stage: 3 },
    train: { framework: 'torchtitan', micro_batch: 2, seq_len: 8192 } });
  assert.deepEqual(r.details.framework, { id: 'torchtitan', label: titan.label, logs: 'reserved', log_unit: 'GiB' });
  const ph = r.details.phases;
  const rounded = Math.ceil(ph.peak_bytes / 2 ** 21) * 2 ** 21;
  assert.equal(ph.reserved_high_bytes, Math.ceil(rounded * listed.reserved_band.high_permille / 1000));
  assert.deepEqual(listed, printedJson('frameworks', '--json'));
});

test('the estimate-only module has no framework listing and says so (its estimate still names the framework)', async () => {
  const lite = await loadLite();
  assert.throws(() => lite.frameworks(), (e) => e instanceof MemplanError && e.field === 'frameworks');
  const r = lite.estimate({ mode: 'train', model: { preset: 'llama-3.1-8b' }, train: { framework: 'litgpt' } });
  assert.deepEqual(r.details.framework, { id: 'litgpt', label: 'LitGPT', logs: 'allocated', log_unit: 'GB' });
});
