// The GPU catalogue and the quantity parser through the shipped module (dist/memplan.js): the same
// core figures and the same parser as the CLI.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { load, MemplanError } from '../../dist/memplan.js';
import { load as loadLite } from '../../dist/memplan-lite.js';

const mp = await load();

test('gpus() is the core catalogue, parsed once and frozen', () => {
  const gpus = mp.gpus();
  assert.equal(gpus, mp.gpus());
  assert.ok(Object.isFrozen(gpus) && Object.isFrozen(gpus[0]));
  // Every entry of the core's catalogue file, none dropped or added on the way to JS.
  assert.equal(gpus.length, JSON.parse(readFileSync(new URL('../../core/data/gpus.json', import.meta.url), 'utf8')).gpus.length);
  const h100 = gpus.find((g) => g.id === 'h100-sxm-80gb');
  assert.equal(h100.nominal_bytes, 80e9);
  assert.equal(h100.usable_bytes, 81559 * 2 ** 20);  // nvidia-smi total, source in core/data/gpus.json
  assert.equal(h100.capacity_bytes, 85520809984);
  const pcie = gpus.find((g) => g.id === 'h100-pcie-80gb');
  assert.equal(pcie.usable_bytes, null);
  assert.equal(pcie.capacity_bytes, 80e9);
  assert.equal(gpus.find((g) => g.id === 'm4-max-128gb').capacity_bytes, 96 * 2 ** 30);  // 75 % of 128 GiB
  for (const g of gpus) assert.match(g.source, /^https:\/\//);
  // Text crosses the WASM boundary as UTF-8.
  assert.match(gpus.find((g) => g.id === 'b300-288gb').note, /÷ 8/);
});

test('gpu(id) is one catalogue entry by its exact id, the same capacity as gpus() has; null for any other text', async () => {
  for (const id of ['h100-sxm-80gb', 'h100-pcie-80gb', 'm4-max-128gb']) {
    const entry = mp.gpus().find((g) => g.id === id);
    assert.deepEqual(mp.gpu(id), { id, name: entry.name, capacity_bytes: entry.capacity_bytes });
  }
  for (const text of ['h100', 'H100-SXM-80GB', '', ' h100-sxm-80gb', '{"id":1}']) assert.equal(mp.gpu(text), null, text);
  // The estimate-only module (the element's) answers the same.
  const lite = await loadLite();
  assert.deepEqual(lite.gpu('rtx-4090-24gb'), mp.gpu('rtx-4090-24gb'));
});

test('parseQuantity reads numbers as people write them, exactly as the core', () => {
  assert.equal(mp.parseQuantity('80 GiB', 'gpu.memory_bytes'), 80 * 2 ** 30);
  assert.equal(mp.parseQuantity('80GB'), 80e9);
  assert.equal(mp.parseQuantity('8B', 'model.params'), 8e9);
  assert.equal(mp.parseQuantity('8k'), 8000);
  assert.equal(mp.parseQuantity('32K'), 32000);
  assert.equal(mp.parseQuantity('1.5M'), 1.5e6);
  assert.equal(mp.parseQuantity('8,000,000,000'), 8e9);
  assert.equal(mp.parseQuantity('2048', 'parallel.gpus', 2048), 2048);
});

test('parseQuantity refuses bits, fractions, bad commas and values above max, naming the field', () => {
  for (const text of ['7b', '80Gb', '1.5', '8,00', '80  GiB', '', 'abc']) {
    assert.throws(() => mp.parseQuantity(text, 'model.params'), (error) => {
      assert.ok(error instanceof MemplanError);
      assert.equal(error.field, 'model.params');
      assert.match(error.message, /^model\.params: must be a whole number from 0 to 9007199254740992/);
      return true;
    }, text);
  }
  assert.throws(() => mp.parseQuantity('2049', 'parallel.gpus', 2048), /parallel\.gpus: must be a whole number from 0 to 2048/);
  assert.throws(() => mp.parseQuantity(80, 'gpu.memory_bytes'), /gpu\.memory_bytes: must be text/);
  assert.throws(() => mp.parseQuantity('1', 'x', -1), /max: must be a whole number/);
  assert.throws(() => mp.parseQuantity('1', 'x', 0.5), /max: must be a whole number/);
});

test('parseField reads a field\'s text as that field does, says what it read, and refuses in the field\'s words', () => {
  // Token counts as vLLM reads --max-model-len (vllm/engine/arg_utils.py human_readable_int): K = 1,024, k = 1,000.
  assert.deepEqual(mp.parseField('32K', 'infer.max_model_len'), { value: 32768, text: '32,768 tokens', note: '' });
  assert.deepEqual(mp.parseField('8k', 'infer.context_len'), { value: 8000, text: '8,000 tokens', note: 'k is 1,000, as vLLM reads it; 8K is 8,192' });
  assert.deepEqual(mp.parseField('0.9', 'infer.gpu_memory_utilization_permille'), { value: 900, text: '90%', note: '' });
  assert.equal(mp.parseField('95.5%', 'infer.gpu_memory_utilization_permille').value, 955);
  // A count takes k and M as 10^3 and 10^6 (tokens keep vLLM's k and K above).
  assert.deepEqual(mp.parseField('8k', 'infer.batch'), { value: 8000, text: '8,000 sequences', note: '' });
  assert.equal(mp.parseField('70b', 'model.params').value, 70e9);
  assert.equal(mp.parseField('1 sequence'.split(' ')[0], 'infer.batch').text, '1 sequence');
  assert.throws(() => mp.parseField('95', 'infer.gpu_memory_utilization_permille'),
    /^MemplanError: infer\.gpu_memory_utilization_permille: cannot be 95: write 0\.95 or 95% \(950 in thousandths\)$/);
  assert.throws(() => mp.parseField('1.5M', 'gpu.memory_bytes'), /K, M, B and T are counts, not sizes/);
  assert.throws(() => mp.parseField('7B', 'parallel.gpus'), /parallel\.gpus: must be a whole number of GPUs from 1 to 1,048,576 \(k = 1,000, M = 1,000,000\)$/);
  assert.throws(() => mp.parseField('8', 'train.recompute'), /train\.recompute: is not a number field of the schema/);
  assert.throws(() => mp.parseField(8, 'infer.batch'), /infer\.batch: must be text/);
  // The schema says how each number field reads its text.
  const field = (path) => mp.schema().fields.find((f) => f.path === path);
  assert.equal(field('infer.context_len').kind, 'tokens');
  assert.equal(field('infer.gpu_memory_utilization_permille').kind, 'fraction');
  assert.match(field('parallel.gpus').forms, /^a whole number of GPUs from 1 to/);
});
