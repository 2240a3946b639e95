// The page against the core's real schema (mp.schema() of dist/memplan.js, built by
// scripts/build-web.sh): the form spec reads it, every slot of the page names one of its fields, the
// page's example workload uses its fields, and the configuration the page sends at start is accepted.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { load } from '../../dist/memplan.js';
import { GB_INPUTS, fieldOf, formSpec } from '../../web/schema.js';
import { STARTING_EXAMPLE } from '../../web/presets.js';
import { buildConfig, decodeState, defaultState, encodeState } from '../../web/state.js';

const mp = await load();
const schema = mp.schema();
const spec = formSpec(schema);

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
  for (const key of Object.keys(STARTING_EXAMPLE)) assert.ok(spec.fields.has(key), key);
});

test('the starting configuration is accepted by the core, and its link is empty', () => {
  const state = defaultState(spec);
  const { config, errors } = buildConfig(spec, state);
  assert.deepEqual(errors, []);
  const result = mp.estimate(config);
  assert.deepEqual(result.errors, []);
  assert.equal(result.params, 20e9);
  assert.equal(encodeState(spec, state), '');
  assert.deepEqual(decodeState(spec, '').state, state);
  const infer = mp.estimate(buildConfig(spec, { ...state, mode: 'infer' }).config);
  assert.deepEqual(infer.errors, []);
});
