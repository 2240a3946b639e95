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

/** Engines' names as their projects write them. */
const ENGINES = Object.freeze({ vllm: 'vLLM', sglang: 'SGLang', trtllm: 'TensorRT-LLM' });

/** Each engine's memory fraction field and the flag it stands for. */
const FRACTION = Object.freeze({
  vllm: { path: 'infer.gpu_memory_utilization_permille', flag: '--gpu-memory-utilization', of: 'of the GPU\'s memory for the whole engine' },
  sglang: { path: 'infer.mem_fraction_static_permille', flag: '--mem-fraction-static', of: 'of the GPU\'s memory for weights and the KV pool' },
  trtllm: { path: 'infer.free_gpu_memory_fraction_permille', flag: 'free_gpu_memory_fraction', of: 'of the memory free after loading becomes KV cache' },
});

/** Divisors of the schema's fraction units (display only: 900 permille is shown as 90 % and 0.9). */
const UNIT_DIVISOR = Object.freeze({ permille: 1000, percent: 100 });
const percent = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1 });
const decimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });
const ratio = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** The budget's terms: key of `serving`, label, and how the engine counts it (docs/serving.md). */
const TERMS = Object.freeze([
  ['weights_bytes', 'Weights', 'memplan\'s per-GPU weights (tp, pp, ep, quantization), or infer.weights_bytes as the engine logs it ("Loading model weights took …").'],
  ['draft_weights_bytes', 'Draft model weights', 'The draft of speculative decoding: a draft model (infer.draft_preset; its weights split over tp, bf16 when the target is quantized) or the model\'s MTP modules (model.mtp); its layers join the KV pool (serving.draft_kv_cache_bytes).'],
  ['activation_peak_bytes', 'Activation peak', 'vLLM subtracts its profiling run\'s peak: the larger of a forward of max_num_batched_tokens tokens (the widest set of bf16 tensors live in one layer) and the sampler step (hidden states + max_num_seqs × vocab × 8 B of fp32 logits and softmax); TensorRT-LLM allocates its runtime buffers before the pool; SGLang does not subtract it (it lives in 1 − mem_fraction_static). infer.activation_peak_bytes replaces the model with a measured value.'],
  ['non_torch_bytes', 'Non-torch memory', 'NCCL, cuBLAS and CUDA context growth outside PyTorch\'s allocator: infer.non_torch_bytes, else 0.5 GiB assumed (with a warning).'],
  ['cuda_graph_bytes', 'CUDA graphs', 'Subtracted only when infer.cuda_graph_bytes is given and eager mode is off (vLLM captures its graphs after sizing the pool, inside the 1 − utilization margin).'],
  ['kv_cache_bytes', 'KV cache pool', 'What is left: vLLM num_blocks = available // page_size // layers (page = 2 · block · KV heads/tp · head_dim · bytes per layer; MLA one latent); SGLang max_total_num_tokens = rest // cell; TensorRT-LLM blocks = ⌈allotted / bytes per token / tokens per block⌉.'],
]);

/** How each engine's budget is formed (docs/serving.md, "What is reproduced"). */
const BUDGET = Object.freeze({
  vllm: '⌈total × gpu_memory_utilization⌉ − weights − activation peak − non-torch (− CUDA graphs when given); vllm/v1/worker/gpu_worker.py determine_available_memory.',
  sglang: 'Free after loading − total × (1 − mem_fraction_static); python/sglang/srt/model_executor/model_runner.py profile_max_num_token.',
  trtllm: '(Free after loading) × free_gpu_memory_fraction; cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp calculateMaxNumBlocks.',
});

let wired = false;
let schema = null;

function wire(mp) {
  schema = mp.schema();
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
  const f = FRACTION[engine];
  const value = usedValue(result, f.path);
  const spec = field(f.path);
  const divisor = spec && UNIT_DIVISOR[spec.unit];
  if (value === null || !divisor) return '';
  return `${ENGINES[engine]}: ${percent.format(value / divisor)} ${f.of} (${f.flag} ${decimal.format(value / divisor)})`;
}

function applyButton(path, value, text) {
  return el('button', text, { type: 'button', 'data-field': path, 'data-value': String(value) });
}

function renderBar(s, unit) {
  const parts = TERMS.map(([key]) => [key, s[key] || 0]);
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
  how.append(el('summary', 'how'), el('p', BUDGET[engine] || ''), el('p', 'Source: ' + s.engine_version, { class: 'source' }));
  budget.append(el('strong', `Budget ${formatBytes(s.budget_bytes, unit)}`, { title: formatExactBytes(s.budget_bytes) }), ' ', how);
  const items = [budget];
  for (const [key, label, formula] of TERMS) {
    if (key === 'draft_weights_bytes' && !s[key]) continue;
    const li = el('li', null, { 'data-term': key });
    const details = el('details');
    details.append(el('summary', 'formula'), el('p', formula));
    li.append(el('span', null, { class: 'swatch serve-' + key, 'aria-hidden': 'true' }),
      el('span', `${label}: `), el('strong', formatBytes(s[key] || 0, unit), { title: formatExactBytes(s[key] || 0) }), ' ', details);
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
  $('serving-fraction').textContent = ENGINES[engine] ? fractionText(result, engine) : '';
  for (const [name, f] of Object.entries(FRACTION)) {
    const slot = document.querySelector(`#serving-panel label[data-field="${f.path}"]`);
    if (slot) slot.hidden = name !== engine;
  }
  if (!s) {
    verdict.className = 'feature-verdict';
    verdict.textContent = ENGINES[engine]
      ? 'Give a GPU size to see whether the engine starts.'
      : 'Choose a serving engine (vLLM, SGLang, TensorRT-LLM) to see whether it starts, its KV blocks and how many requests run at once.';
    delete verdict.dataset.starts;
    delete verdict.dataset.key;
    delete $('serving-suggestions').dataset.key;
    for (const id of ['serving-bar', 'serving-terms', 'serving-answers', 'serving-suggestions']) $(id).replaceChildren();
    $('serving-bar').hidden = true;
    return;
  }
  const name = ENGINES[s.engine] || s.engine;
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

function renderAnswers(mp, analysis, unit) {
  const box = $('serving-suggestions');
  const key = JSON.stringify([analysis ? analysis.serving || null : 'pending', unit]);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  const answers = [];
  const suggestions = [];
  if (!analysis) answers.push(el('li', 'Computing the fewest GPUs and the longest max_model_len…'));
  else if (analysis.serving) {
    const a = analysis.serving;
    const add = (label, value, key) => {
      const li = el('li', null, { 'data-serving': key });
      li.append(el('span', label + ': '), el('strong', value));
      answers.push(li);
    };
    add('Fewest GPUs that serve (one replica)', a.fewest_gpus === null ? 'none' : `${formatCount(a.fewest_gpus)} (tp ${formatCount(a.tp)} × pp ${formatCount(a.pp)})`, 'fewest_gpus');
    add('Requests of max_model_len at once', formatCount(a.max_concurrent_requests), 'max_concurrent_requests');
    add('Longest max_model_len that starts', a.longest_max_model_len ? formatCount(a.longest_max_model_len) + ' tokens' : 'none', 'longest_max_model_len');
    const limit = analysis.limits && analysis.limits.context_limit_tokens;
    if (a.longest_beyond_context_limit && limit)
      answers.at(-1).append(el('em', ` — beyond the model's context limit of ${formatCount(limit)} tokens (max_position_embeddings)`, { class: 'beyond-limit' }));
    for (const g of a.suggestions) {
      const li = el('li', null, { class: g.serves ? 'fits' : '' });
      const label = field(g.field) ? field(g.field).label : g.field;
      li.append(el('strong', `${label}: ${g.from} → ${g.to}`), ` ${g.serves ? 'serves' : 'does not serve'}; ` +
        `${formatCount(g.kv_capacity_tokens)} KV tokens, ${formatBytes(g.total, unit)} per GPU `, applyButton(g.field, g.to, 'apply'));
      suggestions.push(li);
    }
  }
  $('serving-answers').replaceChildren(...answers);
  $('serving-suggestions').replaceChildren(...suggestions);
}
