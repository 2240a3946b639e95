// The form spec (web/schema.js) read from a schema in the core's shape.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SCHEMA, spec } from './helpers.mjs';
import { GB_INPUTS, fieldOf, formSpec, inMode, modelKeys, nullable } from '../../web/schema.js';

test('every schema field is a state key, except the byte sizes asked for in GB under a page name', () => {
  const paths = SCHEMA.fields.map((f) => f.path).filter((p) => !Object.values(GB_INPUTS).includes(p));
  for (const path of paths) assert.ok(spec.keys.includes(path), path);
  assert.equal(spec.keys.includes('gpu.memory_bytes'), false);
  assert.ok(spec.keys.includes('gpu.custom_gb'));
  assert.equal(fieldOf(spec, 'gpu.custom_gb').path, 'gpu.memory_bytes');
  assert.equal(fieldOf(spec, 'overhead.misc_gb').min, 0);
  // A GB input starts at its byte field's schema default, in GB; without one, at the page's setting.
  assert.equal(spec.defaults['overhead.misc_gb'], '0.28704768');
  assert.equal(spec.defaults['gpu.custom_gb'], '80');
});

test('choices and defaults are the schema\'s; page-only choices are the page\'s', () => {
  assert.deepEqual(spec.choices['train.recompute'], ['none', 'selective', 'full']);
  assert.deepEqual(spec.choices.unit, ['GiB', 'GB']);
  assert.equal(spec.choices['gpu.preset'].at(-1), 'custom');
  assert.equal(spec.defaults['parallel.zero_bucket_params'], '500000000');
  assert.equal(nullable(spec, 'parallel.fsdp'), true);
  assert.equal(nullable(spec, 'train.recompute'), false);
  assert.equal(inMode(spec.fields.get('parallel.zero_stage'), 'infer'), false);
  assert.equal(inMode(spec.fields.get('parallel.gpus'), 'infer'), true);
  assert.equal(modelKeys(spec).includes('model.preset'), false);
  assert.equal(modelKeys(spec).length, 24);
});

test('a schema of another version is refused', () => {
  assert.throws(() => formSpec({ ...SCHEMA, version: 2 }), /not version 1/);
  assert.throws(() => formSpec(null), /not version 1/);
});
