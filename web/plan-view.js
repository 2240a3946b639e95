// memplan page — the Plan view: the core's layout planner (mp.plan, core/src/search/plan.cpp) run in a
// worker when asked, its ranked layouts in a table with their time, throughput, memory and bottleneck;
// "apply" writes a layout's fields to the form (app.js applySuggestion). Every number is the core's.
import { $, el } from './dom.js';
import { formatBytes, formatCount } from './format.js';

let current = null;  // {config, gpu, mode} of the last update

const seconds = (s) => (s >= 1 ? `${s.toFixed(2)} s` : `${(s * 1e3).toFixed(1)} ms`);

/** Remembers the page's configuration and GPU for the next plan; shows the batch field in training only. */
export function notePlanSetup(config, gpu) {
  current = { config, gpu, mode: config.mode || 'train' };
  $('plan-batch-box').hidden = current.mode !== 'train';
}

/** The fields a layout sets, as the apply button's data-field / data-value / data-also. */
function applyAttributes(l, mode) {
  const also = mode === 'train'
    ? { 'parallel.gpus': l.gpus, 'parallel.pp': l.pp, 'parallel.cp': l.cp, 'parallel.ep': l.ep, 'parallel.virtual_stages': l.virtual_stages,
      'parallel.zero_stage': l.zero_stage, 'parallel.sequence_parallel': l.tp > 1, 'train.recompute': l.recompute, 'train.micro_batch': l.micro_batch }
    : { 'parallel.gpus': l.tp * l.pp, 'parallel.pp': l.pp, 'infer.weight_dtype': l.weight_dtype, 'infer.kv_dtype': l.kv_dtype };
  return { type: 'button', 'data-field': 'parallel.tp', 'data-value': String(l.tp), 'data-also': JSON.stringify(also), 'aria-label': `Apply ${l.text}` };
}

function render(result, unit) {
  const train = result.mode === 'train';
  const rows = result.top.map((l, i) => {
    const tr = el('tr', null, { 'data-rank': String(i + 1) });
    tr.append(el('td', String(i + 1), { class: 'num' }), el('td', formatCount(l.gpus), { class: 'num' }), el('td', l.text),
      el('td', train ? seconds(l.step_s) : `${seconds(l.decode_step_s)} a decode step`, { class: 'num' }),
      el('td', formatCount(Math.round(train ? l.tokens_per_s_per_gpu : l.decode_tokens_per_s_per_gpu)), { class: 'num' }),
      el('td', formatBytes(l.total_bytes, unit), { class: 'num' }),
      el('td', train ? `${l.bottleneck} (MFU ${(100 * l.mfu).toFixed(1)} %)` : 'HBM bandwidth'));
    const cell = el('td');
    cell.append(el('button', 'apply', applyAttributes(l, result.mode)));
    tr.append(cell);
    return tr;
  });
  $('plan-table').tBodies[0].replaceChildren(...rows);
  $('plan-table').hidden = !rows.length;
  $('plan-rejected').replaceChildren(...result.rejected.map((r) => el('li', `${formatCount(r.count)} × ${r.reason} (e.g. ${r.example})`)));
  $('plan-status').textContent = `${formatCount(result.considered)} layouts tried, ${formatCount(result.fitting)} fit` +
    (result.empty_reason ? `; no layout: ${result.empty_reason}` : '.');
}

/** The Plan view's own fields, by the request member the core names in its errors (plan.min_gpus, …). */
const PLAN_FIELDS = { 'plan.min_gpus': 'plan-min-gpus', 'plan.max_gpus': 'plan-max-gpus', 'plan.gpus': 'plan-min-gpus', 'plan.global_batch': 'plan-global-batch' };

/** The core's refusal in the form's words: a Plan field's error names its label and marks that field. */
function showErrors(errors) {
  const words = errors.map((e) => {
    const input = PLAN_FIELDS[e.field] ? $(PLAN_FIELDS[e.field]) : null;
    if (!input) return `${e.field}: ${e.message}`;
    input.setAttribute('aria-invalid', 'true');
    const label = input.closest('label').firstChild.textContent.trim();
    return `${label}: ${e.message.replace(/plan\.(min_gpus|max_gpus|global_batch)/g, (m) => labelOf(m) || m)}`;
  });
  $('plan-status').textContent = 'No plan: ' + words.join('; ');
}

function labelOf(field) {
  const input = PLAN_FIELDS[field] ? $(PLAN_FIELDS[field]) : null;
  return input ? input.closest('label').firstChild.textContent.trim() : null;
}

/** Wires the Plan button: runPlan(request) → Promise of {analysis: plan result} | {errors} | {timedOut}. */
export function wirePlan(runPlan, unitOf) {
  $('plan-run').addEventListener('click', async () => {
    if (!current) return;
    const request = { config: current.config, gpu: current.gpu, min_gpus: Number($('plan-min-gpus').value),
      max_gpus: Number($('plan-max-gpus').value), top_n: 10 };
    if (current.mode === 'train') request.global_batch = Number($('plan-global-batch').value);
    for (const id of Object.values(PLAN_FIELDS)) $(id).removeAttribute('aria-invalid');
    $('plan-status').textContent = 'Planning…';
    $('plan-panel').dataset.pending = '';
    const outcome = await runPlan(request);
    delete $('plan-panel').dataset.pending;
    if (outcome.superseded) return;
    if (outcome.analysis) render(outcome.analysis, unitOf());
    else if (outcome.timedOut) $('plan-status').textContent = 'The plan was stopped after its time limit: narrow the GPU range (memplan plan computes any range).';
    else showErrors(outcome.errors);
    $('plan-panel').dataset.planned = String(Number($('plan-panel').dataset.planned || 0) + 1);
  });
}
