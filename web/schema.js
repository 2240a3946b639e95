// memplan page — the form's description, read from the core's schema (mp.schema(), one table in
// core/include/memplan/config/schema.hpp): which configuration fields exist, their type, allowed values,
// range, default and label. The page restates none of them. No DOM here.
import { PAGE_SETTINGS } from './presets.js';

/**
 * Byte-count fields the form asks for in GB (10^9 bytes) under a page name: page field → schema path.
 * Only the unit differs; the range is the schema field's.
 */
export const GB_INPUTS = Object.freeze({ 'gpu.custom_gb': 'gpu.memory_bytes', 'overhead.misc_gb': 'overhead.misc_bytes' });

/** Page fields that are not configuration fields: presets, the GB inputs, the display unit. */
export const PAGE_ONLY = Object.freeze(new Set(['model.preset', 'gpu.preset', 'unit', ...Object.keys(GB_INPUTS)]));

/** Allowed values of the page-only choices; the GPU ids are the core's catalogue (mp.gpus()). */
const pageChoices = (gpus) => ({
  'gpu.preset': Object.freeze([...gpus.map((g) => g.id), 'custom']),
  'unit': Object.freeze(['GiB', 'GB']),
});

/**
 * A schema default as a form value: text for numbers (the core's default_text where it has one: what a
 * person types) and choices, a boolean, or '' for "not set".
 */
function formValue(field) {
  const value = field.default;
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value;
  return field.default_text ?? String(value);  // as typed: 0.9, not the 900 thousandths stored
}

/**
 * The page's view of a schema ({version, fields, limits}): {fields: Map path → field, keys: the state's
 * field names in schema order, defaults: state defaults (schema defaults, then the page settings),
 * choices, nullable, gpus: the GPU catalogue}. Throws when the schema is not the version the page is
 * written for. `gpus` is the core's GPU catalogue (mp.gpus()): id, name and capacity_bytes.
 */
export function formSpec(schema, gpus = []) {
  if (!schema || schema.version !== 1 || !Array.isArray(schema.fields))
    throw new Error('memplan page: the core\'s schema is not version 1');
  const fields = new Map();
  const defaults = {};
  const choices = pageChoices(gpus);
  for (const field of schema.fields) {
    if (field.path === 'version' || !field.path.includes('.') && field.path !== 'mode') continue;
    fields.set(field.path, Object.freeze(field));
    const gbName = Object.keys(GB_INPUTS).find((name) => GB_INPUTS[name] === field.path);
    if (gbName) {  // asked for in GB under its page name; a byte default becomes GB text
      if (typeof field.default === 'number') defaults[gbName] = String(field.default / 1e9);
      continue;
    }
    defaults[field.path] = formValue(field);
    if (field.type === 'choice') choices[field.path] = Object.freeze([...field.choices]);
  }
  Object.assign(defaults, PAGE_SETTINGS);
  return Object.freeze({
    fields,
    keys: Object.freeze(Object.keys(defaults)),
    defaults: Object.freeze(defaults),
    choices: Object.freeze(choices),
    limits: Object.freeze({ ...(schema.limits || {}) }),
    gpus: Object.freeze([...gpus]),
  });
}

/** The schema field behind a state key (a GB input names its byte field), or undefined. */
export function fieldOf(spec, key) {
  return spec.fields.get(GB_INPUTS[key] || key);
}

/** True when the field has no default, so '' (not set) is a valid value. */
export function nullable(spec, key) {
  const field = spec.fields.get(key);
  return !!field && (field.default === null || field.default === undefined);
}

/** True when the field applies in the run mode ('train' or 'infer'). */
export function inMode(field, mode) {
  return !field.modes || field.modes.includes(mode);
}

/** Model fields of the state (every schema field under model. except the preset). */
export function modelKeys(spec) {
  return spec.keys.filter((k) => k.startsWith('model.') && k !== 'model.preset');
}
