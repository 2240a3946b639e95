// The model the page sends for a preset or a pasted config.json (state.js buildConfig with a model base):
// the core's resolved model with only the form's changes on top, so per-layer lists (DeepSeek-V3's three
// dense layers) and flags a model_type implies (Qwen3's q_norm/k_norm) survive the round trip through
// the form. Expected counts are the core's (tests/core/model/test_arch_2026.cpp).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { load } from '../../dist/memplan.js';
import { formSpec } from '../../web/schema.js';
import { buildConfig, defaultState, modelFields } from '../../web/state.js';

const mp = await load();
const spec = formSpec(mp.schema());
// The page's number reader (app.js): the core's mp.parseField.
const parse = (text, path) => mp.parseField(text, path);

/** The page state after picking a preset (its fields written into the form), then `edits`. */
function stateOf(base, edits = {}) {
  return { ...defaultState(spec), ...modelFields(spec, base), ...edits, mode: 'infer' };
}

test('a preset sent through the form keeps what the form cannot show', () => {
  for (const [id, params] of [['deepseek-v3', 671026419200], ['qwen3-30b-a3b', 30532122624]]) {
    const base = mp.resolveModel({ model: { preset: id } }).model;
    const { config, errors } = buildConfig(spec, stateOf(base), parse, base);
    assert.deepEqual(errors, []);
    assert.equal(mp.estimate(config).params, params, id);
  }
  // Without the base the form alone loses what it cannot show (DeepSeek-V3's per-layer MLP list): the
  // defect this guards against.
  const deepseek = mp.resolveModel({ model: { preset: 'deepseek-v3' } }).model;
  assert.notEqual(mp.estimate(buildConfig(spec, stateOf(deepseek), parse).config).params, 671026419200);
  // A flag the model_type implies is written into the resolved model, so the form shows it (Qwen3's
  // QK-norm checked) and keeps it even without the base.
  const qwen = mp.resolveModel({ model: { preset: 'qwen3-30b-a3b' } }).model;
  assert.equal(modelFields(spec, qwen)['model.qk_norm'], true);
  assert.equal(mp.estimate(buildConfig(spec, stateOf(qwen), parse).config).params, 30532122624);
});

test('an edit on top of the base is sent; an emptied field is left to the core', () => {
  const base = mp.resolveModel({ model: { preset: 'deepseek-v3' } }).model;
  const { config } = buildConfig(spec, stateOf(base, { 'model.vocab_size': '100000' }), parse, base);
  assert.equal(config.model.vocab_size, 100000);
  assert.deepEqual(config.model.mlp_layer_types, base.mlp_layer_types);
  // 29,280 fewer vocabulary rows in the untied embedding and output: 2 × 29,280 × 7,168 parameters.
  assert.equal(mp.estimate(config).params, 671026419200 - 2 * 29280 * 7168);
  assert.equal(base.moe_intermediate_size, 2048);
  const emptied = buildConfig(spec, stateOf(base, { 'model.moe_intermediate_size': '' }), parse, base).config.model;
  assert.equal('moe_intermediate_size' in emptied, false);
  assert.equal(emptied.num_local_experts, base.num_local_experts);
});
