// Shared by the unit tests of the page's pure modules: a fixed schema in the shape of the core's
// mp.schema() (tests/web/fixtures/schema-stub.json, written for these tests so that their expected
// values do not move when the core's table changes; schema-core.test.mjs checks the page against the
// real one).
import { readFileSync } from 'node:fs';
import { formSpec } from '../../web/schema.js';

export const SCHEMA = JSON.parse(readFileSync(new URL('./fixtures/schema-stub.json', import.meta.url), 'utf8'));
export const spec = formSpec(SCHEMA);
