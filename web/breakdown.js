// memplan page — the answer: the fit verdict, the warnings, the breakdown table with its stacked bar,
// and the model summary (parameter counts, KV cache). Every number is the core's.
import { $, el } from './dom.js';
import { partsOf, totalOf } from './explain.js';
import { barGeometry } from './chart.js';
import { formatBytes, formatCount, formatExactBytes, formatParams, formatPercent, groupNumbers } from './format.js';
import { capacityBytes, neededBytes, usedValue } from './state.js';

export function renderVerdict(result, unit) {
  const total = result.per_gpu.total;
  const out = $('verdict');
  if (!result.gpu) {
    out.className = 'verdict';
    out.textContent = `${formatBytes(total, unit)} per GPU (no GPU capacity given)`;
    delete out.dataset.fits;
    delete out.dataset.approximate;
    return;
  }
  const capacity = capacityBytes(result);
  out.className = 'verdict ' + (result.gpu.fits ? 'fits' : 'no-fit');
  // Set only when it changes: the verdict is a live region, and a text set again is announced again
  // (the core's first answer redraws the one drawn before it loaded, first-result.js).
  // The core compares gpu.needed_bytes: the total, or in training the step's peak where it is above it.
  const needed = neededBytes(result);
  const what = needed === total ? formatBytes(total, unit) : `${formatBytes(needed, unit)} at the step's peak`;
  // With a serving engine the core's verdict is whether the engine starts (gpu.decided_by "engine"): said as
  // the engine says it, so that the verdict and the engine panel give one answer.
  const engine = result.gpu.decided_by === 'engine' && result.serving ? result.serving : null;
  const text = (engine
    ? (result.gpu.fits
      ? `${engine.engine_label} starts on ${formatBytes(capacity, unit)} per GPU: KV cache for ${formatCount(engine.kv_capacity_tokens)} tokens, ` +
        `${formatCount(engine.max_concurrent_requests)} requests of ${formatCount(engine.max_model_len)} tokens at once.`
      : `${engine.engine_label} does not start: ${engine.refusal}`)
    : result.gpu.fits
      ? `Fits: ${what} of ${formatBytes(capacity, unit)} per GPU, ${formatBytes(result.gpu.headroom_bytes, unit)} headroom.`
      : `Does not fit: ${what} per GPU needs ${formatBytes(result.gpu.shortfall_bytes, unit)} more than the GPU's ${formatBytes(capacity, unit)}.`) +
    (result.gpu.approximate ? ' ' + APPROXIMATE : '');
  if (out.textContent !== text) out.textContent = text;
  out.dataset.fits = String(result.gpu.fits);
  if (result.gpu.approximate) out.dataset.approximate = 'true';
  else delete out.dataset.approximate;
}

/** Said with a verdict the core marks approximate (result.gpu.approximate: a model known by its stored bytes). */
export const APPROXIMATE = 'Approximate — model known only by its stored bytes and declared sizes; see warnings.';

/** The warnings of a result as the page lists them: "field label: message". */
export function warningLines(result, spec = null) {
  const name = (f) => (spec && spec.fields.get(f) ? spec.fields.get(f).label : f);
  return result.warnings.map((w) => `${name(w.field)}: ${groupNumbers(w.message)}`);
}

export function renderWarnings(result, spec = null, lines = warningLines(result, spec)) {
  $('warnings').replaceChildren(...lines.map((line) => el('li', line)));
}

/** One row of the breakdown: its label, size, share of the total, and how the core computes it (`how`: the core's explanation row). */
function row(how, bytes, total, unit) {
  const tr = el('tr', null, { 'data-row': how.key });
  const name = el('th', null, { scope: 'row' });
  name.append(el('span', null, { class: 'swatch seg-' + how.key, 'aria-hidden': 'true' }), how.label);
  const details = el('details');
  details.append(el('summary', 'formula and source', { 'aria-label': `How ${how.label.toLowerCase()} is computed: formula and source` }), el('p', how.formula), el('p', 'Source: ' + how.source, { class: 'source' }));
  tr.append(name, el('td', formatBytes(bytes, unit), { class: 'num', title: formatExactBytes(bytes) }),
    el('td', total ? formatPercent(bytes / total) : '', { class: 'num' }), el('td', null, { class: 'how' }));
  tr.lastChild.append(details);
  return tr;
}

/**
 * The prefill an inference answer assumes, from the values the core used and the core's details:
 * {batch, chunk (the tokens of a chunked prefill, details.prefill_chunk_tokens; null: the whole batch in
 * one pass), perSequence (infer.prefill_tokens; null: the context), context}; null in training. An early
 * answer (first-result.js) carries it as `prefill`.
 */
export function prefillOf(result) {
  if (result.prefill !== undefined) return result.prefill;
  if (!result.config || result.config.mode !== 'infer') return null;
  const chunk = result.details && result.details.prefill_chunk_tokens;
  return { batch: usedValue(result, 'infer.batch'), chunk: chunk ? chunk : null,
    perSequence: usedValue(result, 'infer.prefill_tokens'), context: usedValue(result, 'infer.context_len') };
}

/** A link-styled button that opens the disclosures around a field of the form and focuses it. */
function focusButton(text, path) {
  const button = el('button', text, { type: 'button', class: 'link', 'data-focus': path });
  button.addEventListener('click', () => {
    const input = document.querySelector(`[name="${path}"]`);
    if (!input) return;
    for (let d = input.closest('details'); d; d = d.parentElement.closest('details')) d.open = true;
    input.focus();
  });
  return button;
}

/**
 * What the inference activations row assumes, from the values the core used, with the controls that
 * change it: "prefill in chunks of 8,192 tokens" (chunked prefill, the core's default) with the chunk's
 * field, or "prefill of 8 × 32,768 tokens in one pass" / "prefill of 8 × 2,048 tokens a pass" (chunked
 * prefill off) with the chunked-prefill switch.
 */
function prefillAssumption({ batch, chunk, perSequence, context }) {
  const out = el('small', null, { class: 'assumed' });
  if (chunk !== null) {
    out.append(`Assumes prefill in chunks of ${formatCount(chunk)} tokens; `, focusButton('change the chunk', 'infer.max_num_batched_tokens'),
      ' or ', focusButton('prefill in one pass', 'infer.chunked_prefill'));
    return out;
  }
  const text = perSequence === null || perSequence === undefined
    ? `prefill of ${formatCount(batch)} × ${formatCount(context)} tokens in one pass`
    : `prefill of ${formatCount(batch)} × ${formatCount(perSequence)} tokens a pass`;
  out.append(`Assumes a ${text}; `, focusButton('prefill in chunks', 'infer.chunked_prefill'));
  return out;
}

/**
 * The breakdown table and its stacked bar. `rows`: the core's explanation rows of the result's run mode
 * (mp.explanations()[mode]): the parts in order, their labels and texts, the total last.
 */
export function renderBreakdown(result, unit, rows) {
  const b = result.per_gpu;
  const capacity = capacityBytes(result);
  const parts = partsOf(rows);
  const label = Object.fromEntries(parts.map((r) => [r.key, r.label]));
  const lines = parts.map((how) => {
    const tr = row(how, b[how.key], b.total, unit);
    if (b[how.key] === 0) tr.classList.add('zero');
    return tr;
  });
  const prefill = prefillOf(result);
  if (prefill) {
    const at = lines.find((tr) => tr.dataset.row === 'activations');
    if (at) at.querySelector('td.how').prepend(prefillAssumption(prefill));
  }
  const totalRow = row(totalOf(rows), b.total, b.total, unit);
  totalRow.classList.add('total');
  $('breakdown').tBodies[0].replaceChildren(...lines, totalRow);
  const geometry = barGeometry(parts.map((r) => [r.key, b[r.key]]), b.total, capacity);
  const segments = geometry.segments.map((s) => {
    const seg = el('span', null, { class: 'seg seg-' + s.key, title: `${label[s.key]}: ${formatBytes(b[s.key], unit)}` });
    seg.style.width = s.percent + '%';
    return seg;
  });
  if (geometry.capacityPercent !== null) {
    const mark = el('span', null, { class: 'capacity', title: `GPU capacity ${formatBytes(capacity, unit)}` });
    mark.style.left = geometry.capacityPercent + '%';
    segments.push(mark);
  }
  const bar = $('bar');
  bar.replaceChildren(...segments);
  bar.setAttribute('aria-label', `Stacked bar of the parts, total ${formatBytes(b.total, unit)}` +
    (capacity ? `, GPU capacity ${formatBytes(capacity, unit)}` : ''));
}

/**
 * The model's parameter counts and, for inference, its KV cache on this GPU, as the page's one estimate
 * states them (`result`: mp.estimate of the configuration shown; the batch, context and KV dtype from
 * its resolved-configuration echo).
 */
export function renderModelSummary(result, unit) {
  const out = $('model-summary');
  const parts = [`${formatParams(result.params)} parameters`];
  if (result.details.params_active !== result.params) parts.push(`${formatParams(result.details.params_active)} active per token`);
  out.dataset.params = String(result.params);
  out.dataset.paramsActive = String(result.details.params_active);
  if (result.config && result.config.mode === 'infer') {
    const used = (path) => usedValue(result, path);
    parts.push(`KV cache ${formatBytes(result.per_gpu.kv_cache, unit)} for ${formatCount(used('infer.batch'))} × ` +
      `${formatCount(used('infer.context_len'))} tokens in ${used('infer.kv_dtype')} on this GPU ` +
      `(${formatCount(result.details.kv_cache_bytes_per_token)} bytes more per token on its layers that keep every token)`);
    out.dataset.kvBytes = String(result.per_gpu.kv_cache);
  } else delete out.dataset.kvBytes;
  out.textContent = parts.join(' · ');
}

/** The model summary while the form has an error: no figures of an earlier answer beside the new input. */
export function clearModelSummary() {
  const out = $('model-summary');
  out.textContent = '';
  for (const key of ['params', 'paramsActive', 'kvBytes']) delete out.dataset[key];
}
