// loadFastEstimator() (web/memplan.js, the numeric path of core/src/api/fast_estimate.cpp): for every
// configuration it answers exactly what mp.estimate() answers for params, data_parallel, per_gpu,
// gpu and warnings, or throws the same MemplanError; whatever it cannot carry goes the JSON way. The
// output's slots are named by the core; the API is declared in memplan.d.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { load, loadFastEstimator, MemplanError } from '../../dist/memplan.js';

const mp = await load();
const fast = await loadFastEstimator();

/** The part of mp.estimate()'s result the fast estimator returns. */
function subset(result) {
  const out = { params: result.params, data_parallel: result.data_parallel, per_gpu: result.per_gpu };
  if (result.gpu) out.gpu = result.gpu;
  out.warnings = result.warnings;
  return out;
}

const llama = { preset: 'llama-3-70b' };
const configs = [
  { model: llama, parallel: { gpus: 1024, tp: 8, pp: 4, zero_stage: 1, sequence_parallel: true },
    train: { micro_batch: 1, seq_len: 8192, recompute: 'selective', flash_attention: true }, gpu: { memory_bytes: 80e9 } },
  { model: llama, parallel: { gpus: 1280, tp: 8, pp: 80, zero_stage: 3 }, train: { recompute: 'full' } },
  // pp that does not divide the layers (a warning: the JSON path answers), and an uneven split that does
  { model: llama, parallel: { gpus: 96, tp: 8, pp: 3 } },
  { model: llama, parallel: { gpus: 320, tp: 8, pp: 40, zero_stage: 2 }, train: { microbatches_in_flight: 2 } },
  { model: { preset: 'mixtral-8x7b' }, parallel: { gpus: 64, tp: 2, pp: 4, ep: 8 }, gpu: { memory_bytes: 80e9 } },
  { model: { preset: 'gemma-2-9b' }, parallel: { gpus: 8, pp: 2, virtual_stages: 2 }, train: { seq_len: 4096 } },
  { model: { preset: 'llama-3-8b' }, mode: 'infer', infer: { batch: 8, context_len: 8192, kv_dtype: 'fp8' } },
  { model: { preset: 'llama-3-8b' }, mode: 'infer', infer: { engine: 'vllm' }, gpu: { memory_bytes: 80e9 } },
  { model: { preset: 'llama-3-8b' }, train: { adapter_type: 'lora', base_dtype: 'nf4' }, parallel: { gpus: 1 } },
  { model: { preset: 'llama-3-8b' }, parallel: { gpus: 16, fsdp: 'hybrid_shard', gpus_per_node: 8 } },
  { model: { params: 7e9, num_hidden_layers: 32, hidden_size: 4096, num_attention_heads: 32 },
    parallel: { gpus: 8, zero_stage: 1 }, overhead: { misc_bytes: 2e9 }, gpu: { memory_bytes: 80e9 } },
  { version: 1, model: { preset: 'qwen2.5-7b' }, train: { optimizer: 'adam_8bit', micro_batch: 4 } },
];

test('the fast estimator answers what mp.estimate answers', () => {
  for (const config of configs) {
    for (let twice = 0; twice < 2; twice++)  // the second time from the cached model
      assert.deepEqual(fast.estimate(config), subset(mp.estimate(config)), JSON.stringify(config));
  }
});

test('every per_gpu part and gpu field comes back, each from the slot the core names', () => {
  const config = { model: { preset: 'llama-3-8b' }, train: { adapter_type: 'lora', base_dtype: 'nf4' }, parallel: { gpus: 1 },
    gpu: { memory_bytes: 24e9 } };
  const expected = mp.estimate(config);
  const answer = fast.estimate(config);
  assert.deepEqual(Object.keys(answer.per_gpu), Object.keys(expected.per_gpu));
  for (const [key, value] of Object.entries(expected.per_gpu)) assert.equal(answer.per_gpu[key], value, key);
  assert.ok(answer.per_gpu.dequant_workspace > 0);  // a slot in the middle of the list, non-zero here
  assert.deepEqual(answer.gpu, { fits: expected.gpu.fits, needed_bytes: expected.gpu.needed_bytes,
    headroom_bytes: expected.gpu.headroom_bytes, shortfall_bytes: expected.gpu.shortfall_bytes, capacity_bytes: 24e9 });
  // Training: what the verdict compares is the larger of the total and the step's peak.
  assert.equal(answer.gpu.needed_bytes, Math.max(expected.per_gpu.total, expected.details.phases.peak_bytes));
});

test('loadFastEstimator is declared in memplan.d.ts with its result type', async () => {
  const { readFile } = await import('node:fs/promises');
  const types = await readFile(new URL('../../dist/memplan.d.ts', import.meta.url), 'utf8');
  assert.match(types, /export function loadFastEstimator\(options\?: LoadOptions\): Promise<FastEstimator>;/);
  assert.match(types, /estimate\(config: Config, options\?: EstimateOptions\): FastEstimate;/);
});

test('invalid input throws the JSON path\'s MemplanError', () => {
  const bad = [
    { model: llama, parallel: { tp: 3 } },
    { model: llama, parallel: { gpus: 0.5 } },
    { model: llama, parallel: { gpus: NaN } },
    { model: llama, train: { recompute: 'sometimes' } },
    { model: llama, train: { micro_batch: '4' } },
    { model: llama, parallel: { nonsense: 1 } },
    { model: { ...llama, hidden_size: Infinity } },
    { model: { num_hidden_layers: 2 } },
    { model: llama, version: 2 },
  ];
  for (const config of bad) {
    let expected;
    assert.throws(() => mp.estimate(config), (e) => { expected = e.message; return e instanceof MemplanError; });
    assert.throws(() => fast.estimate(config), (e) => e instanceof MemplanError && e.message === expected,
      JSON.stringify(config));
  }
});

test('a model object changed between calls is read again (the cache by identity compares every value)', () => {
  const model = { num_hidden_layers: 32, hidden_size: 4096, num_attention_heads: 32 };
  const config = { model, parallel: { gpus: 8, zero_stage: 1 }, gpu: { memory_bytes: 80e9 } };
  const before = fast.estimate(config);
  assert.deepEqual(before, subset(mp.estimate(config)));
  model.hidden_size = 5120;  // same object, one value changed
  const wider = fast.estimate(config);
  assert.deepEqual(wider, subset(mp.estimate(config)));
  assert.ok(wider.params > before.params, 'a wider model has more parameters');
  model.num_key_value_heads = 8;  // same object, one key added
  assert.deepEqual(fast.estimate(config), subset(mp.estimate(config)));
  delete model.num_key_value_heads;  // and removed again: the first figures
  model.hidden_size = 4096;
  assert.deepEqual(fast.estimate(config), before);
  model.hidden_size = NaN;  // refused as the JSON path refuses it
  assert.throws(() => fast.estimate(config), MemplanError);
});

test('options (a Hugging Face config, a recipe) go the JSON way and are honoured, never dropped', () => {
  // A model that the configuration does not name: the fast estimator's answer must be the config.json's.
  const hfConfig = { model_type: 'llama', hidden_size: 2048, intermediate_size: 5632, num_hidden_layers: 22,
    num_attention_heads: 32, num_key_value_heads: 4, vocab_size: 32000, max_position_embeddings: 2048 };
  const config = { mode: 'infer', infer: { context_len: 2048 } };
  assert.deepEqual(fast.estimate(config, { hfConfig }), subset(mp.estimate(config, { hfConfig })));
  assert.equal(fast.estimate(config, { hfConfig }).params, mp.resolveModel({}, { hfConfig }).params);
  assert.throws(() => fast.estimate(config), (e) => e.field === 'model.params', 'without the config.json there is no model');
  const train = { model: { preset: 'llama-3-8b' }, train: { seq_len: 1024 } };
  assert.deepEqual(fast.estimate(train, { recipe: 'qlora' }), subset(mp.estimate(train, { recipe: 'qlora' })));
  assert.throws(() => fast.estimate(train, { recipe: 'nope' }), (e) => e instanceof MemplanError && e.field === 'recipe');
});
