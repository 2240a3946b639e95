// Errors in the form's words (web/form.js inWords, placeError): the schema paths a core message names
// become the form's labels, and a message about the field the user just changed is shown on that field,
// naming the other field and its value. Counts with their noun and long numbers grouped (web/format.js).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spec } from './helpers.mjs';
import { inWords, placeError } from '../../web/form.js';
import { formatCountOf, groupNumbers } from '../../web/format.js';

const multiple = { field: 'parallel.gpus', message: 'must be a multiple of parallel.tp × parallel.pp (3)' };

test('a core message in the form\'s labels: paths become labels, unknown paths and other words stay', () => {
  assert.equal(inWords(spec, multiple.message), 'must be a multiple of Tensor parallel (tp) × Pipeline parallel (pp) (3)');
  assert.equal(inWords(spec, 'must divide model.num_attention_heads (24)'), 'must divide Attention heads (24)');
  assert.equal(inWords(spec, 'see vllm.engine and 0.95'), 'see vllm.engine and 0.95');
  // A GB input's byte field is named as the form asks for it.
  assert.equal(inWords(spec, 'exceeds gpu.memory_bytes'), 'exceeds Memory per GPU (GB)');
});

test('an error about the field just changed is placed on it, naming the other field and its value', () => {
  const state = { 'parallel.gpus': '8', 'parallel.tp': '3' };
  assert.deepEqual(placeError(spec, multiple, state, 'parallel.tp'),
    { key: 'parallel.tp', text: 'GPUs (8) must be a multiple of Tensor parallel (tp) × Pipeline parallel (pp) (3)' });
  // Changed elsewhere (or the field itself): on the field the core names.
  assert.deepEqual(placeError(spec, multiple, state, 'parallel.gpus'),
    { key: 'parallel.gpus', text: 'GPUs must be a multiple of Tensor parallel (tp) × Pipeline parallel (pp) (3)' });
  assert.deepEqual(placeError(spec, multiple, state, 'infer.batch').key, 'parallel.gpus');
  assert.deepEqual(placeError(spec, multiple, state, null).key, 'parallel.gpus');
  // A prefix of another path is not a mention ("parallel.t" is not parallel.tp).
  assert.equal(placeError(spec, multiple, state, 'parallel.t').key, 'parallel.gpus');
  // The GB input is the field an error on its byte field lands on.
  assert.equal(placeError(spec, { field: 'gpu.memory_bytes', message: 'must be at least 1' }).key, 'gpu.custom_gb');
});

test('counts take their noun in the singular for one; long numbers in messages are grouped', () => {
  assert.equal(formatCountOf(1, 'sequence', 'sequences'), '1 sequence');
  assert.equal(formatCountOf(1024, 'sequence', 'sequences'), '1,024 sequences');
  assert.equal(groupNumbers('exceeds the KV pool (1500000 tokens): one request cannot reach it'),
    'exceeds the KV pool (1,500,000 tokens): one request cannot reach it');
  assert.equal(groupNumbers('0.95 of 2048 tokens, 1,234,567 and 12345.5'), '0.95 of 2048 tokens, 1,234,567 and 12345.5');
});
