// The first answer bundled at build time (web/first-result.js) against a fixed schema: the digest of the
// configuration, and exactly the fields the early drawing reads.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spec } from './helpers.mjs';
import { digest, firstAnswer } from '../../web/first-result.js';
import { defaultState } from '../../web/state.js';

test('the digest is cyrb53 (its author\'s reference values, github.com/bryc/code jshash/README.md) in base 36', () => {
  for (const [text, value] of [['a', 7929297801672961], ['b', 8684336938537663], ['revenge', 4051478007546757],
    ['revenue', 8309097637345594]]) assert.equal(digest(text), value.toString(36), text);
});

const per_gpu = { weights: 16060522496, gradients: 0, optimizer_states: 0, activations: 838860800, logits: 769536,
  communication: 0, kv_cache: 1073741824, dequant_workspace: 0, misc: 287047680, total: 18260942336 };
const result = {
  params: 8030261248, per_gpu: { ...per_gpu, extra_part: 5 }, details: { params_active: 8030261248 },
  gpu: { fits: true, capacity_bytes: 85520809984, needed_bytes: 18260942336, headroom_bytes: 67259867648, shortfall_bytes: 0, memory_text: 'x' },
  warnings: [{ field: 'infer.context_len', message: 'is beyond the model\'s max_position_embeddings (4096)' }],
  config: { mode: 'infer', infer: { batch: 1, context_len: 8192, prefill_tokens: null } },
};
const config = { mode: 'infer', model: { hidden_size: 4096 }, infer: { context_len: 8192 } };
/** Explanation rows in the shape of mp.explanations()[mode]: the parts of per_gpu and the total, last. */
const rows = Object.keys(per_gpu).map((key) => ({ key, label: 'Label of ' + key, formula: 'how ' + key, source: 'where ' + key }));

test('the bundled answer holds what the verdict, the bar, the warnings and the breakdown read, and the configuration\'s digest', () => {
  const state = defaultState(spec);
  const answer = firstAnswer(spec, state, config, result, rows);
  assert.deepEqual(answer, {
    mode: 'infer', setup: 'custom model of 8.03B parameters · inference · 1 × 8,192 tokens · 1× NVIDIA H100 SXM (80 GB HBM3)',
    unit: 'GiB', config: digest(JSON.stringify(config)), rows, per_gpu,
    warnings: [`${spec.fields.get('infer.context_len').label}: is beyond the model's max_position_embeddings (4096)`],
    // What the activations row says it assumed: the whole context prefilled in one pass (the core gave
    // no chunk: details.prefill_chunk_tokens absent).
    prefill: { batch: 1, chunk: null, perSequence: null, context: 8192 },
    gpu: { fits: true, capacity_bytes: 85520809984, needed_bytes: 18260942336, headroom_bytes: 67259867648, shortfall_bytes: 0 },
  });
  // Another configuration with the same numbers is another answer: the check compares the configuration too.
  const other = firstAnswer(spec, state, { ...config, infer: { context_len: 8193 } }, result, rows);
  assert.notEqual(other.config, answer.config);
  assert.equal('gpu' in firstAnswer(spec, state, config, { ...result, gpu: undefined }, rows), false);
  assert.equal(firstAnswer(spec, { ...state, unit: 'GB' }, config, result, rows).unit, 'GB');
  // A chunked prefill: the chunk the core resolved (details.prefill_chunk_tokens), 0 meaning none.
  const chunked = { ...result, details: { ...result.details, prefill_chunk_tokens: 8192 } };
  assert.deepEqual(firstAnswer(spec, state, config, chunked, rows).prefill, { batch: 1, chunk: 8192, perSequence: null, context: 8192 });
  const whole = { ...result, details: { ...result.details, prefill_chunk_tokens: 0 } };
  assert.equal(firstAnswer(spec, state, config, whole, rows).prefill.chunk, null);
  // The parts are the rows' keys: a row the core explains differently is another answer.
  assert.deepEqual(Object.keys(firstAnswer(spec, state, config, result, rows.slice(1)).per_gpu), Object.keys(per_gpu).slice(1));
});
