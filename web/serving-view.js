// memplan page — the serving panel: will the chosen engine (vLLM, SGLang, TensorRT-LLM) start, how many
// KV blocks and tokens its pool holds and how many requests of max_model_len run at once — or its
// refusal with the longest max_model_len that starts; the budget bar of the terms the engine subtracts,
// each with its formula; and analyze()'s serving answers and suggestions. Every number is the core's
// (estimate().serving, analyze().serving; docs/serving.md); the page only formats them.
import { $, el } from './dom.js';
import { barGeometry } from './chart.js';
import { adoptSlots, setFields } from './feature-slots.js';
import { formatBytes, formatCount, formatExactBytes } from './format.js';
import { usedValue } from './state.js';

/** Divisors of the schema's fraction units (display only: 900 permille is shown as 90 % and 0.9). */
const UNIT_DIVISOR = Object.freeze({ permille: 1000, percent: 100 });
const percent = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1 });
const decimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });
const ratio = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

let wired = false;
let schema = null;
/** The core's engines by id ({id, label, share_field, share_flag, share_of, budget, version}) and the budget's terms. */
let engines = new Map();
let terms = [];

function wire(mp) {
  schema = mp.schema();
  const described = mp.engines();
  engines = new Map(described.engines.map((e) => [e.id, e]));
  terms = described.budget_terms;
  const panel = $('serving-panel');
  adoptSlots(panel);
  panel.addEventListener('click', (event) => {
    const button = event.target.closest('button[data-field]');
    if (button) setFields({ [button.dataset.field]: button.dataset.value });
  });
  wired = true;
}

function field(path) {
  return schema.fields.find((f) => f.path === path);
}

/** "90 % of the GPU's memory (--gpu-memory-utilization 0.9)" from the resolved permille value. */
function fractionText(result, engine) {
  const e = engines.get(engine);
  const value = usedValue(result, e.share_field);
  const spec = field(e.share_field);
  const divisor = spec && UNIT_DIVISOR[spec.unit];
  if (value === null || !divisor) return '';
  return `${e.label}: ${percent.format(value / divisor)} ${e.share_of} (${e.share_flag} ${decimal.format(value / divisor)})`;
}

function applyButton(path, value, text) {
  return el('button', text, { type: 'button', 'data-field': path, 'data-value': String(value) });
}

function renderBar(s, unit) {
  const parts = terms.map((t) => [t.key, s[t.key] || 0]);
  const geometry = barGeometry(parts, s.budget_bytes, s.budget_bytes);
  const bar = $('serving-bar');
  bar.replaceChildren(...geometry.segments.map((g) => {
    const seg = el('span', null, { class: 'seg serve-' + g.key, title: `${g.key}: ${formatBytes(s[g.key], unit)}` });
    seg.style.width = Math.min(100, g.percent) + '%';
    return seg;
  }));
  bar.setAttribute('aria-label', `Budget of ${formatBytes(s.budget_bytes, unit)}: weights, activation peak, non-torch memory, CUDA graphs and the KV cache pool`);
  const engine = s.engine;
  const budget = el('li', null, { 'data-term': 'budget_bytes' });
  const how = el('details');
  const release = s.release ? `; release assumed: vLLM ${s.release} (infer.engine_version)` : '';
  how.append(el('summary', 'how'), el('p', engines.has(engine) ? engines.get(engine).budget : ''), el('p', 'Source: ' + s.engine_version + release, { class: 'source' }));
  budget.append(el('strong', `Budget ${formatBytes(s.budget_bytes, unit)}`, { title: formatExactBytes(s.budget_bytes) }), ' ', how);
  const items = [budget];
  for (const { key, label, formula } of terms) {
    if (key === 'draft_weights_bytes' && !s[key]) continue;
    const li = el('li', null, { 'data-term': key });
    const details = el('details');
    details.append(el('summary', 'formula'), el('p', formula));
    li.append(el('span', null, { class: 'swatch serve-' + key, 'aria-hidden': 'true' }),
      el('span', `${label}: `), el('strong', formatBytes(s[key] || 0, unit), { title: formatExactBytes(s[key] || 0) }), ' ', details);
    // The core's named parts of this term (serving.breakdown: vLLM's profiling run, non-torch buffers…).
    const parts = (s.breakdown || []).filter((row) => row.term === key);
    if (parts.length) {
      const list = el('ul', null, { class: 'serving-rows' });
      list.append(...parts.map((row) => el('li', `${row.label}: ${formatBytes(row.bytes, unit)}${row.measured ? ' (replaced by the measured figure)' : ''}`,
        { 'data-row': row.label, title: row.source })));
      li.append(list);
    }
    items.push(li);
  }
  $('serving-terms').replaceChildren(...items);
}

/**
 * Renders the panel for an estimate result in inference mode (hidden by the page in training mode) and,
 * once it arrives, analyze()'s result for the same configuration (null while it is computed).
 */
export function renderServing(mp, result, analysis, unit) {
  if (!wired) wire(mp);
  if (!result || !result.config || result.config.mode !== 'infer') return;
  const engine = usedValue(result, 'infer.engine');
  const verdict = $('serving-verdict');
  const s = result.serving;
  $('serving-fraction').textContent = engines.has(engine) ? fractionText(result, engine) : '';
  for (const [name, e] of engines) {
    const slot = document.querySelector(`#serving-panel label[data-field="${e.share_field}"]`);
    if (slot) slot.hidden = name !== engine;
  }
  if (!s) {
    verdict.className = 'feature-verdict';
    verdict.textContent = engines.has(engine)
      ? 'Give a GPU size to see whether the engine starts.'
      : `Choose a serving engine (${[...engines.values()].map((e) => e.label).join(', ')}) to see whether it starts, its KV blocks and how many requests run at once.`;
    delete verdict.dataset.starts;
    delete verdict.dataset.key;
    delete $('serving-answers').dataset.key;
    for (const id of ['serving-bar', 'serving-terms', 'serving-answers']) $(id).replaceChildren();
    $('serving-bar').hidden = true;
    return;
  }
  const name = engines.has(s.engine) ? engines.get(s.engine).label : s.engine;
  // Redrawn only when it changes: a re-render between a button's mousedown and mouseup (a text field's
  // change on blur recomputes) would swallow the click.
  const key = JSON.stringify([s, unit]);
  if (verdict.dataset.key !== key) drawVerdict(verdict, s, name, unit);
  verdict.dataset.key = key;
  renderAnswers(mp, analysis, unit);
}

function drawVerdict(verdict, s, name, unit) {
  verdict.dataset.starts = String(s.starts);
  verdict.className = 'feature-verdict ' + (s.starts ? 'fits' : 'no-fit');
  const per = s.replicas > 1 ? ` per replica (${formatCount(s.replicas)} replicas)` : '';
  const concurrency = ratio.format(s.max_concurrency.numerator / s.max_concurrency.denominator);
  const pool = `${formatCount(s.num_blocks)} blocks = ${formatCount(s.kv_capacity_tokens)} tokens`;
  if (s.starts) {
    verdict.replaceChildren(`${name} starts; ${pool}; ${concurrency} requests of ${formatCount(s.max_model_len)} tokens at once${per}.`);
  } else {
    const longest = s.max_model_len_that_starts;
    const answer = el('p', longest
      ? `Largest max_model_len that starts: ${formatCount(longest)} tokens. `
      : 'No max_model_len starts: the budget leaves no KV cache. ', { class: 'longest' });
    if (longest) answer.append(applyButton('infer.max_model_len', longest, 'use it'));
    verdict.replaceChildren(el('strong', `${name} does not start. `), s.refusal || '', el('br'), `${pool}.`, answer);
  }
  $('serving-bar').hidden = false;
  renderBar(s, unit);
}

/** The engine's own answers; the fewest GPUs is the one inverse search's (analysis.fewest), and its
 * suggestions are the page's "What would make it fit" list: one answer for every view. */
function renderAnswers(mp, analysis, unit) {
  const box = $('serving-answers');
  const key = JSON.stringify([analysis ? [analysis.serving || null, analysis.fewest] : 'pending', unit]);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  const answers = [];
  if (!analysis) answers.push(el('li', 'Computing the fewest GPUs and the longest max_model_len…'));
  else if (analysis.serving) {
    const a = analysis.serving;
    const add = (label, value, key) => {
      const li = el('li', null, { 'data-serving': key });
      li.append(el('span', label + ': '), el('strong', value));
      answers.push(li);
    };
    const f = analysis.fewest;
    add('Fewest GPUs that serve (one replica)', f ? `${formatCount(f.gpus)} (tp ${formatCount(f.tp)} × pp ${formatCount(f.pp)})` : 'none', 'fewest_gpus');
    add('Requests of max_model_len at once', formatCount(a.max_concurrent_requests), 'max_concurrent_requests');
    add('Longest max_model_len that starts', a.longest_max_model_len ? formatCount(a.longest_max_model_len) + ' tokens' : 'none', 'longest_max_model_len');
    const limit = analysis.limits && analysis.limits.context_limit_tokens;
    if (a.longest_beyond_context_limit && limit)
      answers.at(-1).append(el('em', ` — beyond the model's context limit of ${formatCount(limit)} tokens (max_position_embeddings)`, { class: 'beyond-limit' }));
  }
  box.replaceChildren(...answers);
}
