// The page's one formatter (web/format.js): GiB = 2^30 bytes, GB = 10^9 bytes, never mixed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatBytes, formatCount, formatExactBytes, formatParams, formatPercent, inUnit, unitLabel } from '../../web/format.js';

test('2^30 bytes are 1 GiB and 1.074 GB (2^30 / 10^9 = 1.073741824)', () => {
  assert.equal(formatBytes(2 ** 30, 'GiB'), '1.000 GiB');
  assert.equal(formatBytes(2 ** 30, 'GB'), '1.074 GB');
  assert.equal(inUnit(2 ** 30, 'GiB'), 1);
  assert.equal(inUnit(2 ** 30, 'GB'), 1.073741824);
});

test('an 80 GB GPU is 74.51 GiB (80e9 / 2^30 = 74.505805969...), 80.00 GB', () => {
  assert.equal(formatBytes(80e9, 'GiB'), '74.51 GiB');
  assert.equal(formatBytes(80e9, 'GB'), '80.00 GB');
  assert.equal(formatExactBytes(80e9), '80,000,000,000 bytes');
});

test('three decimals below 10 units, two from 10 on; 0 with two; an unknown unit falls back to GiB', () => {
  assert.equal(formatBytes(9.999e9, 'GB'), '9.999 GB');
  assert.equal(formatBytes(10e9, 'GB'), '10.00 GB');
  assert.equal(formatBytes(0, 'GB'), '0.00 GB');
  assert.equal(formatBytes(2 ** 31, 'MiB'), '2.000 GiB');
  assert.equal(unitLabel('MiB'), 'GiB');
  assert.equal(unitLabel('GB'), 'GB');
});

test('counts, parameter counts and shares', () => {
  assert.equal(formatCount(1048576), '1,048,576');
  assert.equal(formatParams(20e9), '20B (20,000,000,000)');
  assert.equal(formatParams(6738415616), '6.738B (6,738,415,616)');
  assert.equal(formatPercent(0.1234), '12.3%');
  assert.equal(formatPercent(1), '100.0%');
});
