// memplan page — number formatting with Intl.NumberFormat, and the one table of size units (GiB = 2^30
// bytes, GB = 10^9 bytes): every conversion between bytes and a unit goes through here. No DOM here.

const UNITS = Object.freeze({
  GiB: { divisor: 2 ** 30, label: 'GiB' },
  GB: { divisor: 1e9, label: 'GB' },
});

const fixed = new Map();
function numberFormat(digits) {
  if (!fixed.has(digits))
    fixed.set(digits, new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }));
  return fixed.get(digits);
}
const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumSignificantDigits: 4 });

/** "74.51 GiB" — bytes in the chosen unit (GiB = 2^30 bytes, GB = 10^9 bytes). */
export function formatBytes(bytes, unit) {
  const value = inUnit(bytes, unit);
  const digits = value !== 0 && Math.abs(value) < 10 ? 3 : 2;
  return numberFormat(digits).format(value) + ' ' + unitLabel(unit);
}

/** Bytes in the chosen unit as a plain number (for chart axes): the one place a unit's divisor is applied. */
export function inUnit(bytes, unit) {
  return bytes / (UNITS[unit] || UNITS.GiB).divisor;
}

/** The unit's name as shown ("GiB" for an unknown unit, as formatBytes falls back). */
export function unitLabel(unit) {
  return (UNITS[unit] || UNITS.GiB).label;
}

/** Exact byte count with grouping: "80,000,000,000 bytes". */
export function formatExactBytes(bytes) {
  return whole.format(bytes) + ' bytes';
}

/** A parameter count: "20B (20,000,000,000)". */
export function formatParams(count) {
  return compact.format(count) + ' (' + whole.format(count) + ')';
}

/** A whole count with grouping: "1,024". */
export function formatCount(count) {
  return whole.format(count);
}

/** A count with its noun, singular for one: "1 sequence", "8 sequences". */
export function formatCountOf(count, one, many) {
  return whole.format(count) + ' ' + (count === 1 ? one : many);
}

/** Whole numbers of five digits or more in a text, grouped ("(1500000 tokens)" → "(1,500,000 tokens)"). */
export function groupNumbers(text) {
  return String(text).replace(/(?<![\d.,])\d{5,}(?![\d.])/g, (digits) => whole.format(Number(digits)));
}

/** "12.3%" */
export function formatPercent(fraction) {
  return numberFormat(1).format(fraction * 100) + '%';
}

const tick = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 });
/** A log-axis tick (powers of ten): "0.01", "0.1", "1", "1,000" — never rounded to "0". */
export function formatTick(value) {
  return tick.format(value);
}
