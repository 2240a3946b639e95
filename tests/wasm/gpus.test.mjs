// The GPU catalogue and the quantity parser through the shipped module (dist/memplan.js): the same
// core figures and the same parser as the CLI.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { load, MemplanError } from '../../dist/memplan.js';

const mp = await load();

test('gpus() is the core catalogue, parsed once and frozen', () => {
  const gpus = mp.gpus();
  assert.equal(gpus, mp.gpus());
  assert.ok(Object.isFrozen(gpus) && Object.isFrozen(gpus[0]));
  assert.equal(gpus.length, 36);
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
