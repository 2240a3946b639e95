// Shared by the unit tests of the page's pure modules: a fixed schema in the shape of the core's
// mp.schema() (tests/web/fixtures/schema-stub.json, written for these tests so that their expected
// values do not move when the core's table changes; schema-core.test.mjs checks the page against the
// real one).
import { readFileSync } from 'node:fs';
import { formSpec } from '../../web/schema.js';

export const SCHEMA = JSON.parse(readFileSync(new URL('./fixtures/schema-stub.json', import.meta.url), 'utf8'));
/** A two-GPU catalogue in the shape of mp.gpus() (capacities chosen for these tests). */
export const GPUS = [
  { id: 'h100-sxm-80gb', name: 'NVIDIA H100 SXM', memory_text: '80 GB HBM3', capacity_bytes: 80e9, usable_text: '' },
  { id: 'rtx-4090-24gb', name: 'NVIDIA GeForce RTX 4090', memory_text: '24 GB GDDR6X', capacity_bytes: 24e9, usable_text: '' },
];
export const spec = formSpec(SCHEMA, GPUS);
