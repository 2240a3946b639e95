// The page against the core's real schema (mp.schema() of dist/memplan.js, built by
// scripts/build-web.sh): the form spec reads it, every slot of the page names one of its fields, the
// page's example workload uses its fields, and the configuration the page sends at start is accepted.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { load } from '../../dist/memplan.js';
import { GB_INPUTS, fieldOf, formSpec } from '../../web/schema.js';
import { STARTING_EXAMPLE } from '../../web/presets.js';
import { buildConfig, decodeState, encodeState, modelFields } from '../../web/state.js';

const mp = await load();
const schema = mp.schema();
const spec = formSpec(schema, mp.gpus());
const presetFields = (id) => (mp.presets().some((p) => p.id === id) ? modelFields(spec, mp.resolveModel({ model: { preset: id } }).model) : null);
const parse = (text, path) => mp.parseField(text, path);

test('every field has a type the form knows, a label, and what its type needs', () => {
  for (const field of schema.fields) {
    assert.ok(['integer', 'boolean', 'choice', 'text', 'bytes'].includes(field.type), field.path);
    assert.equal(typeof field.label, 'string', field.path);
    assert.ok(field.label.length > 0, field.path);
    if (field.type === 'choice') assert.ok(field.choices.length >= 2, field.path);
    if (field.type === 'integer' || field.type === 'bytes') assert.ok(field.min <= field.max, field.path);
    if (field.default !== null && field.type === 'choice') assert.ok(field.choices.includes(field.default), field.path);
  }
});

test('every slot of the page and every GB input names a schema field', () => {
  const html = readFileSync(new URL('../../web/index.html', import.meta.url), 'utf8');
  const slots = [...html.matchAll(/data-field="([^"]+)"/g)].map((m) => m[1]);
  assert.ok(slots.length >= 50, `${slots.length} slots`);
  for (const key of slots) assert.ok(fieldOf(spec, key), key);
  for (const path of Object.values(GB_INPUTS)) assert.equal(spec.fields.get(path).type, 'bytes', path);
  for (const key of Object.keys(STARTING_EXAMPLE)) assert.ok(spec.fields.has(key) || key === 'model.preset', key);
  assert.ok(mp.presets().some((p) => p.id === STARTING_EXAMPLE['model.preset']));  // a stored model
  assert.ok(mp.gpus().some((g) => g.id === spec.defaults['gpu.preset']));          // a catalogue GPU
});

test('the starting configuration is accepted by the core, and its link is empty', () => {
  const { state } = decodeState(spec, '', presetFields);
  const { config, errors } = buildConfig(spec, state, parse);
  assert.deepEqual(errors, []);
  const result = mp.estimate(config);
  assert.deepEqual(result.errors, []);
  assert.equal(result.params, mp.resolveModel({ model: { preset: 'llama-3.1-8b' } }).params);
  assert.equal(result.gpu.capacity_bytes, mp.gpus().find((g) => g.id === 'h100-sxm-80gb').capacity_bytes);
  assert.equal(result.gpu.fits, true);  // Llama 3.1 8B at 8k on one H100 80GB: the answer people expect
  assert.equal(encodeState(spec, state, presetFields), '');
  const train = mp.estimate(buildConfig(spec, { ...state, mode: 'train' }, parse).config);
  assert.deepEqual(train.errors, []);
});
