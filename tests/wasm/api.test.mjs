// The shipped module (dist/memplan.js) in Node 20: the ZeRO formulas' worked examples, the estimate and
// analyze objects, and every error path of the JS API.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { load, MemplanError } from '../../dist/memplan.js';

const mp = await load();

const seven_b = {
  model: { params: 7e9, num_hidden_layers: 32, hidden_size: 4096, num_attention_heads: 32 },
  parallel: { gpus: 8, zero_stage: 1 },
  gpu: { memory_bytes: 80e9 },
};

/** Asserts that `fn` throws a MemplanError with exactly `message`. */
function throwsMessage(fn, message) {
  assert.throws(fn, (error) => {
    assert.ok(error instanceof MemplanError, 'a MemplanError');
    assert.ok(error instanceof Error);
    assert.equal(error.message, message);
    assert.ok(error.errors.length >= 1);
    return true;
  });
}

test('load() is memoized', async () => {
  assert.equal(await load(), mp);
});

test("ZeRO model-state bytes: 7e9 parameters on 8 GPUs are 112 / 38.5 / 26.25 / 14 GB", () => {
  assert.equal(mp.modelStateBytes(7e9, 8, 0), 112e9);
  assert.equal(mp.modelStateBytes(7e9, 8, 1), 38.5e9);
  assert.equal(mp.modelStateBytes(7e9, 8, 2), 26.25e9);
  assert.equal(mp.modelStateBytes(7e9, 8, 3), 14e9);
});

test("the ZeRO inverse: 80 GB on 8 GPUs is 5e9 / 14545454545 / 40e9 parameters", () => {
  assert.equal(mp.maxParams(80e9, 8, 0), 5e9);
  assert.equal(mp.maxParams(80e9, 8, 1), 14545454545);
  assert.equal(mp.maxParams(80e9, 8, 2), 21333333333);
  assert.equal(mp.maxParams(80e9, 8, 3), 40e9);
});

test('the inverse is exact at the boundary', () => {
  for (const stage of [0, 1, 2, 3]) {
    const largest = mp.maxParams(80e9, 8, stage);
    assert.ok(mp.modelStateBytes(largest, 8, stage) <= 80e9);
    assert.ok(mp.modelStateBytes(largest + 1, 8, stage) > 80e9);
  }
});

test("a bad stage throws with the field named", () => {
  for (const stage of [4, -1, 1.5, NaN, Infinity, '1', null, undefined, 2 ** 32])
    throwsMessage(() => mp.modelStateBytes(7e9, 8, stage), 'stage must be 0, 1, 2 or 3');
  throwsMessage(() => mp.maxParams(80e9, 8, 7), 'stage must be 0, 1, 2 or 3');
});

test('bad counts name their parameter', () => {
  const params = 'n_params must be an integer from 0 to 562949953421312';
  for (const p of [-1, 1.5, NaN, Infinity, 2 ** 49 + 2, '7e9', 7n])
    throwsMessage(() => mp.modelStateBytes(p, 8, 1), params);
  const gpus = 'n_gpus must be an integer from 1 to 1048576';
  for (const n of [0, -8, 2.5, 2 ** 20 + 1, NaN]) {
    throwsMessage(() => mp.modelStateBytes(7e9, n, 1), gpus);
    throwsMessage(() => mp.maxParams(80e9, n, 1), gpus);
  }
  for (const b of [-1, 0.5, 2 ** 53 + 2, Infinity])
    throwsMessage(() => mp.maxParams(b, 8, 1), 'gpu_bytes must be an integer from 0 to 9007199254740992');
  throwsMessage(() => mp.maxParams(2 ** 53, 1048576, 3),
    'gpu_bytes result exceeds 562949953421312 parameters, the largest count memplan supports');
});

test('several bad arguments are all reported', () => {
  assert.throws(() => mp.modelStateBytes(-1, 0, 9), (error) => {
    assert.deepEqual(error.errors.map((e) => e.field), ['n_params', 'n_gpus', 'stage']);
    assert.equal(error.field, 'n_params');
    assert.match(error.message, /^n_params must .*; n_gpus must .*; stage must be 0, 1, 2 or 3$/);
    return true;
  });
});

test('estimate() returns the CLI result object', () => {
  const r = mp.estimate(seven_b);
  assert.deepEqual(Object.keys(r), ['params', 'data_parallel', 'per_gpu', 'details', 'gpu', 'config', 'framework_defaults', 'warnings', 'errors']);
  assert.deepEqual(r.framework_defaults, []);  // no train.framework named: no framework's default applied
  assert.equal(r.params, 7e9);
  assert.equal(r.data_parallel, 8);
  assert.equal(r.per_gpu.weights + r.per_gpu.gradients + r.per_gpu.optimizer_states, 38.5e9);
  const parts = Object.entries(r.per_gpu).filter(([k]) => k !== 'total').reduce((s, [, v]) => s + v, 0);
  assert.equal(r.per_gpu.total, parts);
  assert.equal(r.gpu.fits, r.per_gpu.total <= 80e9);
  assert.deepEqual(r.errors, []);
  // JSON text in, the same object out.
  assert.deepEqual(mp.estimate(JSON.stringify(seven_b)), r);
  assert.equal(JSON.stringify(r), mp.estimateJson(JSON.stringify(seven_b)));
});

test('estimate() errors name the field', () => {
  const cases = [
    [{ model: { ...seven_b.model, num_attention_heads: 12, hidden_size: 768 }, parallel: { gpus: 8, tp: 8 } },
      'parallel.tp: must divide model.num_attention_heads (12)'],
    [{ ...seven_b, parallel: { gpus: 8, tp: 3 } }, 'parallel.gpus: must be a multiple of parallel.tp × parallel.pp (3)'],
    [{ ...seven_b, parallel: { zero_stage: 4 } }, 'parallel.zero_stage: must be 0, 1, 2 or 3'],
    [{ ...seven_b, parallel: { gpus: 0 } }, 'parallel.gpus: must be an integer from 1 to 1048576'],
    [{ ...seven_b, parallel: { gpus: 2.5 } }, 'parallel.gpus: must be an integer from 1 to 1048576'],
    // JSON has no NaN: JSON.stringify would write null, which the core reads as "absent"; the API refuses it.
    [{ ...seven_b, parallel: { gpus: NaN } }, 'parallel.gpus: must be a finite number (NaN and infinities have no JSON form)'],
    [{ ...seven_b, gpu: { memory_bytes: Infinity } }, 'gpu.memory_bytes: must be a finite number (NaN and infinities have no JSON form)'],
    [{ ...seven_b, parallel: { gpus: '8' } }, 'parallel.gpus: must be an integer from 1 to 1048576'],
    [{ ...seven_b, train: { recompute: 'sometimes' } }, 'train.recompute: must be one of: none, selective, full, selective_op'],
    [{ ...seven_b, train: { flash_attention: 1 } }, 'train.flash_attention: must be true or false'],
    [{ ...seven_b, mode: 'serve' }, 'mode: must be one of: train, infer'],
    [{ ...seven_b, colour: 'blue' }, 'colour: is not a known key'],
    [{ ...seven_b, model: 7 }, 'model: must be an object'],
    [{ ...seven_b, model: { params: -7e9 } }, 'model.params: must be an integer from 0 to 562949953421312'],
    [{ ...seven_b, gpu: { memory_bytes: 0 } }, 'gpu.memory_bytes: must be an integer from 1 to 9007199254740992'],
    [{ mode: 'train', model: { params: 7e9 } }, 'model.num_hidden_layers: is required for activation memory; ' +
      'model.hidden_size: is required for activation memory; model.num_attention_heads: is required for activation memory'],
    [{ version: 2 }, 'version: must be 1'],
    [[], 'config: must be a JSON object'],
    [null, 'config: must be a JSON object'],
    [42, 'config: must be a JSON object'],
    ['{"model":', 'config: is not valid JSON'],
  ];
  for (const [config, message] of cases) throwsMessage(() => mp.estimate(config), message);
  throwsMessage(() => mp.estimate({ model: { params: 7n } }), 'config: cannot be serialised as JSON (Do not know how to serialize a BigInt)');
  throwsMessage(() => mp.analyze({ ...seven_b, parallel: { tp: 0 } }), 'parallel.tp: must be an integer from 1 to 1024');
});

test('estimateJson() returns errors as data, never throws', () => {
  for (const text of ['', '{', 'null', '[1]', '{"a":1}', '\u0000', '{"model":{"params":1e400}}']) {
    const out = JSON.parse(mp.estimateJson(text));
    assert.ok(out.errors.length > 0, text);
    assert.equal(out.per_gpu, undefined);
  }
});

test('analyze() gives four stages, suggestions and the sweep', () => {
  const a = mp.analyze(seven_b);
  assert.deepEqual(a.estimate, mp.estimate(seven_b));
  assert.deepEqual(a.stages.map((s) => s.model_states_max_params), [5e9, 14545454545, 21333333333, 40e9]);
  // The stage row shows the figure the verdict decides on (gpu.needed_bytes: here the step's peak).
  assert.equal(a.stages[1].total, a.estimate.gpu.needed_bytes);
  assert.ok(a.estimate.gpu.needed_bytes >= a.estimate.per_gpu.total);
  assert.deepEqual(a.sweep.map((p) => p.gpus), [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]);
  assert.deepEqual(a.sweep[3].totals, a.stages.map((s) => s.total));
  for (const s of a.suggestions) assert.equal(s.total + s.saving_bytes, a.estimate.gpu.needed_bytes);  // the verdict's figure
});

// ---------------------------------------------------------------------------------------------
// Presets, Hugging Face configs and the new result fields .

const llama2_7b_hf = {  // meta-llama/Llama-2-7b-hf config.json, with keys memplan does not read
  architectures: ['LlamaForCausalLM'], bos_token_id: 1, eos_token_id: 2, hidden_act: 'silu', hidden_size: 4096,
  initializer_range: 0.02, intermediate_size: 11008, max_position_embeddings: 4096, model_type: 'llama',
  num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 32, pretraining_tp: 1, rms_norm_eps: 1e-5,
  rope_scaling: null, tie_word_embeddings: false, torch_dtype: 'float16', transformers_version: '4.31.0.dev0',
  use_cache: true, vocab_size: 32000,
};

test('presets() lists the stored models once, parsed and frozen', () => {
  const presets = mp.presets();
  assert.equal(mp.presets(), presets);  // cached
  assert.ok(presets.length >= 30);
  const llama = presets.find((p) => p.id === 'llama-2-7b');
  assert.equal(llama.name, 'Llama 2 7B');
  assert.equal(llama.published_params, 6738415616);
  assert.equal(llama.config.model_type, 'llama');
  assert.ok(Object.isFrozen(presets) && Object.isFrozen(llama.config));
  for (const p of presets) assert.ok(p.id && p.name && p.source && p.config, p.id);
});

test('a Hugging Face config.json as hfConfig: Llama-2-7B has 6,738,415,616 parameters and 2 GiB of KV cache at 4096 tokens', () => {
  const config = { mode: 'infer', infer: { batch: 1, context_len: 4096, kv_dtype: 'bf16' } };
  for (const hfConfig of [llama2_7b_hf, JSON.stringify(llama2_7b_hf)]) {
    const r = mp.estimate(config, { hfConfig });
    assert.equal(r.params, 6738415616);
    assert.equal(r.per_gpu.kv_cache, 2 ** 31);
    assert.equal(r.details.kv_cache_bytes_per_token, 524288);
  }
  assert.deepEqual(mp.estimate(config, { hfConfig: llama2_7b_hf }), mp.estimate({ ...config, model: { preset: 'llama-2-7b' } }));
  assert.equal(mp.estimateJson(JSON.stringify(config), JSON.stringify(llama2_7b_hf)),
    JSON.stringify(mp.estimate(config, { hfConfig: llama2_7b_hf })));
  // Without options (or with an empty hfConfig) the existing API is unchanged.
  assert.deepEqual(mp.estimate(seven_b, {}), mp.estimate(seven_b));
  assert.deepEqual(mp.estimate(seven_b, { hfConfig: '' }), mp.estimate(seven_b));
});

test('resolveModel() gives explicit keys that reproduce every preset exactly', () => {
  for (const p of mp.presets()) {
    const resolved = mp.resolveModel({ model: { preset: p.id } });
    if (p.published_params) assert.equal(resolved.params, p.published_params, p.id);
    for (const mode of ['train', 'infer']) {
      const base = { mode, parallel: { gpus: 8 }, gpu: { memory_bytes: 80e9 } };
      assert.deepEqual(mp.estimate({ ...base, model: resolved.model }), mp.estimate({ ...base, model: { preset: p.id } }), p.id);
    }
  }
  const mixtral = mp.resolveModel({ model: { preset: 'mixtral-8x7b' } });
  assert.ok(mixtral.params_active < mixtral.params);
  assert.equal(mixtral.model.num_local_experts, 8);
  assert.equal(mp.resolveModel({}, { hfConfig: llama2_7b_hf }).params, 6738415616);
  // A flag the model_type implies is written out, so a form built from the model shows it as counted:
  // Qwen3's QK-norm (q_norm, k_norm) is true; Llama 3's, which it does not have, is left out.
  assert.equal(mp.resolveModel({ model: { preset: 'qwen3-8b' } }).model.qk_norm, true);
  assert.equal('qk_norm' in mp.resolveModel({ model: { preset: 'llama-3.1-8b' } }).model, false);
});

test('a broken Hugging Face config is an error naming the field', () => {
  throwsMessage(() => mp.estimate({}, { hfConfig: '{' }), 'hf_config: is not valid JSON');
  throwsMessage(() => mp.estimate({}, { hfConfig: [] }), 'hf_config: must be a JSON object');
  throwsMessage(() => mp.estimate({}, { hfConfig: { ...llama2_7b_hf, num_attention_heads: 30 } }),
    'hf_config.hidden_size: must be divisible by hf_config.num_attention_heads (30) when hf_config.head_dim is not given; ' +
    'hf_config.num_key_value_heads: must divide hf_config.num_attention_heads (30)');
  throwsMessage(() => mp.estimate({}, { hfConfig: { ...llama2_7b_hf, vocab_size: NaN } }),
    'hf_config.vocab_size: must be a finite number (NaN and infinities have no JSON form)');
  throwsMessage(() => mp.resolveModel({ model: { preset: 'nope' } }), 'model.preset: must be the id of a model preset (memplan presets)');
  throwsMessage(() => mp.estimate({}, 'x'), 'options: must be an object such as {hfConfig} or {recipe}');
});

test('options.recipe: the core sets the recipe\'s values over the configuration, as the CLI\'s --recipe', () => {
  const base = { model: { preset: 'qwen3-8b' }, train: { seq_len: 2048 }, gpu: { memory_bytes: 24e9 } };
  const qlora = mp.recipes().find((r) => r.id === 'qlora');
  const applied = structuredClone(base);
  for (const [path, value] of Object.entries(qlora.values)) {
    const [section, key] = path.split('.');
    (applied[section] ??= {})[key] = value;
  }
  const viaRecipe = mp.estimate(base, { recipe: 'qlora' });
  assert.deepEqual(viaRecipe.per_gpu, mp.estimate(applied).per_gpu);
  assert.ok(viaRecipe.per_gpu.total < mp.estimate(base).per_gpu.total, 'a 4-bit base with adapters needs less than full fine-tuning');
  // The recipe wins over the configuration's own value of the same field.
  assert.deepEqual(mp.estimate({ ...base, train: { seq_len: 2048, base_dtype: 'bf16' } }, { recipe: 'qlora' }).per_gpu, viaRecipe.per_gpu);
  throwsMessage(() => mp.estimate(base, { recipe: 'nope' }), 'recipe: must be one of: ' + mp.recipes().map((r) => r.id).join(', ') +
    ' (memplan recipes lists them)');
  assert.throws(() => mp.estimate({ ...base, mode: 'infer' }, { recipe: 'qlora' }), (e) => e.field === 'recipe' && /mode infer does not read/.test(e.message));
  throwsMessage(() => mp.estimate(base, { recipe: 7 }), 'recipe: must be a recipe id (text) such as "qlora"');
});

test('details and limits: quantized inference states its overhead; training reports per-layer tensors and limits', () => {
  const infer = mp.analyze({ mode: 'infer', model: { preset: 'llama-3-8b' }, infer: { weight_dtype: 'int4', quant_group_size: 128, context_len: 8192 },
    gpu: { memory_bytes: 24e9 } });
  const d = infer.estimate.details;
  assert.ok(d.quantization_overhead_bytes > 0 && d.quantization_overhead_bytes < infer.estimate.per_gpu.weights);
  assert.equal(infer.limits.max_micro_batch, null);
  assert.ok(infer.limits.max_batch >= 1 && infer.limits.max_context_len >= 8192);
  const train = mp.analyze({ model: { preset: 'llama-2-7b' }, parallel: { gpus: 8, zero_stage: 3 }, train: { seq_len: 4096, flash_attention: true },
    gpu: { memory_bytes: 80e9 } });
  const t = train.estimate.details;
  assert.ok(t.layer_activations.length > 5);
  assert.equal(t.layer_activations.reduce((s, x) => s + x.bytes, 0), t.layer_activation_bytes);
  assert.ok(train.limits.max_micro_batch >= 1 && train.limits.max_seq_len >= 4096);
  assert.equal(train.limits.max_batch, null);
  const offload = mp.estimate({ model: { preset: 'llama-2-7b' }, parallel: { gpus: 8, zero_stage: 3, offload_optimizer: 'cpu' } });
  assert.ok(offload.details.host_bytes_per_node > 0);
  assert.equal(offload.per_gpu.optimizer_states, 0);
});

test('presetFits(): every preset on the setup, each figure the estimate of that preset; bad input throws', () => {
  const setup = { mode: 'infer', infer: { context_len: 8192 }, gpu: { memory_bytes: 80e9 } };
  const fits = mp.presetFits(setup);
  assert.equal(fits.length, mp.presets().length);
  for (const id of ['llama-3.1-8b', 'llama-3.1-405b', 'gpt2']) {
    const entry = fits.find((f) => f.id === id);
    const alone = mp.estimate({ ...setup, model: { preset: id } });
    assert.equal(entry.total_bytes, alone.gpu.needed_bytes);
    assert.equal(entry.fits, alone.gpu.fits);
  }
  assert.equal(fits.find((f) => f.id === 'gpt2').beyond_context_limit, true);  // n_positions 1024
  assert.throws(() => mp.presetFits({ infer: { context_len: 0 } }), (e) => e.errors[0].field === 'infer.context_len');
});

test('presetNames(): every preset\'s id, name and source in catalogue order, without the counts of presets()', () => {
  const names = mp.presetNames();
  assert.deepEqual(names, mp.presets().map((p) => ({ id: p.id, name: p.name, source: p.source })));
  assert.ok(Object.isFrozen(names) && Object.isFrozen(names[0]));
});

// ---------------------------------------------------------------------------------------------
// The layout planner (core/src/search/plan.cpp) through mp.plan(): the CLI's `memplan plan --json`.

test('plan() ranks layouts that fit, each with its memory and step-time rows; bad requests throw naming the field', () => {
  const request = { config: { mode: 'train', model: { preset: 'llama-3-8b' }, train: { seq_len: 4096 } },
    gpu: 'h100-sxm-80gb', gpus: 8, global_batch: 64, top_n: 3 };
  const p = mp.plan(request);
  assert.equal(p.mode, 'train');
  assert.equal(p.top.length, 3);
  assert.ok(p.considered >= p.fitting && p.fitting >= 3);
  for (const l of p.top) {
    assert.equal(l.tp * l.pp * l.cp * l.dp, 8);
    assert.ok(l.headroom_bytes >= 0);
    const sum = l.terms.reduce((a, t) => a + t.seconds, 0);
    assert.ok(Math.abs(sum - l.step_s) <= 1e-9 * l.step_s);
    // The memory is mp.estimate()'s for that layout.
    const e = mp.estimate({ ...request.config, parallel: { gpus: l.gpus, tp: l.tp, pp: l.pp, cp: l.cp, ep: l.ep, virtual_stages: l.virtual_stages,
      zero_stage: l.zero_stage, sequence_parallel: l.tp > 1 }, train: { seq_len: 4096, recompute: l.recompute, micro_batch: l.micro_batch },
    gpu: { memory_bytes: mp.gpus().find((g) => g.id === 'h100-sxm-80gb').capacity_bytes } });
    assert.equal(e.gpu.needed_bytes, l.total_bytes);  // the figure its verdict decides on
    assert.equal(e.gpu.fits, true);
  }
  for (let i = 1; i < p.top.length; i++) assert.ok(p.top[i - 1].step_s <= p.top[i].step_s);
  // H100 step times are outside the model's calibration: the answer warns, naming the calibrating field.
  assert.deepEqual(p.warnings.map((w) => w.field), ['gpu.gemm_efficiency']);
  assert.deepEqual(mp.plan({ ...request, gemm_efficiency: 0.45 }).warnings, []);
  throwsMessage(() => mp.plan({ ...request, gpus: undefined, min_gpus: 1, max_gpus: 1e6 }), 'plan.max_gpus: must be an integer from 1 to 65536 (got 1000000)');
  throwsMessage(() => mp.plan({ ...request, gpu: 'nope' }), 'plan.gpu: must be a GPU id from the catalogue (memplan gpus), got "nope"');
  // NaN has no JSON form: JSON.stringify would send null; the wrapper names the member instead.
  throwsMessage(() => mp.plan({ ...request, global_batch: NaN }), 'plan.global_batch: must be a finite number (NaN and infinities have no JSON form)');
  throwsMessage(() => mp.plan({ ...request, config: { ...request.config, train: { seq_len: Infinity } } }),
    'plan.config.train.seq_len: must be a finite number (NaN and infinities have no JSON form)');
});

test('plan().by_gpus: one row per GPU count searched, ascending, each best the top of a plan of that count; planSteps() streams to plan()', () => {
  const request = { config: { mode: 'train', model: { preset: 'llama-3-8b' }, train: { seq_len: 4096 } },
    gpu: 'h100-sxm-80gb', min_gpus: 1, max_gpus: 8, global_batch: 64, top_n: 3 };
  const p = mp.plan(request);
  assert.deepEqual(p.gpu_counts, [1, 2, 4, 8]);
  assert.deepEqual(p.by_gpus.map((r) => r.gpus), [1, 2, 4, 8]);
  assert.equal(p.done, true);
  assert.equal(p.gpu_memory_bytes, mp.gpus().find((g) => g.id === 'h100-sxm-80gb').capacity_bytes);
  assert.equal(p.by_gpus.reduce((a, r) => a + r.considered, 0), p.considered);
  assert.equal(p.by_gpus.reduce((a, r) => a + r.fitting, 0), p.fitting);
  for (const row of p.by_gpus) {
    const alone = mp.plan({ ...request, min_gpus: row.gpus, max_gpus: row.gpus, top_n: 1 });
    assert.equal(row.fitting, alone.fitting);
    assert.deepEqual(row.best, alone.top[0] ?? null);
  }
  assert.equal(p.by_gpus[0].best, null);  // 8B with Adam does not fit one 80 GB GPU
  const steps = [...mp.planSteps(request)];
  assert.deepEqual(steps.map((s) => s.by_gpus.length), [1, 2, 3, 4]);
  assert.deepEqual(steps.map((s) => s.done), [false, false, false, true]);
  assert.deepEqual(steps[3], p);
  // Leaving early frees the search; a bad request throws as plan() does.
  for (const s of mp.planSteps(request)) if (!s.done) break;
  throwsMessage(() => [...mp.planSteps({ ...request, gpu: 'nope' })], 'plan.gpu: must be a GPU id from the catalogue (memplan gpus), got "nope"');
});
