// memplan page — the fine-tuning panel: the core's fine-tuning recipes as buttons (mp.recipes(),
// core/data/recipes.json: full fine-tuning, LoRA, QLoRA and DoRA, each a set of form values, nothing
// computed here), the trainable parameters, the frozen base against the adapters, the host memory, and
// the inverse answers of analyze() (longest sequence, largest micro-batch, largest adapter rank). Every
// number is the core's (estimate().details, analyze().limits).
import { $, el } from './dom.js';
import { adoptSlots, setFields } from './feature-slots.js';
import { formatBytes, formatCount, formatExactBytes, formatParams } from './format.js';
import { usedValue } from './state.js';

/**
 * Puts the panel's controls in place and its recipe buttons (`recipes`: mp.recipes(), [{id, label,
 * source, values}]); a button sets the recipe's values in the form. Once, after the form is built.
 */
export function wireFinetune(recipes) {
  adoptSlots($('finetune-panel'));
  const box = $('finetune-recipes');
  box.replaceChildren(...recipes.map((r) => el('button', r.label, { type: 'button', 'data-recipe': r.id, title: r.source })));
  box.addEventListener('click', (event) => {
    const button = event.target.closest('button[data-recipe]');
    const recipe = button && recipes.find((r) => r.id === button.dataset.recipe);
    if (recipe) setFields(recipe.values);
  });
}

/** The kind of fine-tuning the resolved configuration describes, in words. */
function kindText(result) {
  const adapter = usedValue(result, 'train.adapter_type');
  const base = usedValue(result, 'train.base_dtype');
  if (!adapter || adapter === 'none') return 'Full fine-tuning: every parameter is trained';
  const name = adapter === 'dora' ? 'DoRA' : base === 'nf4' || base === 'fp4' ? 'QLoRA' : 'LoRA';
  const dq = usedValue(result, 'train.double_quant') ? ', double quantization' : '';
  return `${name}: rank ${formatCount(usedValue(result, 'train.adapter_rank'))} adapters on ` +
    `${usedValue(result, 'train.adapter_targets')} over a frozen ${base} base${dq}`;
}

/**
 * Renders the panel for an estimate result (training mode; hidden by the page in inference mode) and,
 * once it arrives, analyze()'s result for the same configuration (null while it is computed).
 */
export function renderFinetune(result, analysis, unit) {
  if (!result || !result.config || result.config.mode !== 'train') return;
  const d = result.details;
  $('finetune-summary').textContent = kindText(result);
  const items = [];
  // exact: the core's integer, kept on the element (data-value) for tools and tests; sizes also as a tooltip.
  const add = (term, value, key, exact, isBytes = false) => {
    const dd = el('dd', value, { 'data-finetune': key });
    if (exact !== undefined) dd.dataset.value = String(exact);
    if (isBytes) dd.title = formatExactBytes(exact);
    items.push(el('dt', term), dd);
  };
  const bytes = (key, term, value = d[key]) => add(term, formatBytes(value, unit), key, value, true);
  if (typeof d.params_trainable === 'number')
    add('Trainable parameters', `${formatParams(d.params_trainable)} of ${formatParams(result.params)}`, 'params_trainable', d.params_trainable);
  if (d.adapter_params) add('Adapter parameters', formatParams(d.adapter_params), 'adapter_params', d.adapter_params);
  if (typeof d.base_weight_bytes === 'number') bytes('base_weight_bytes', 'Frozen base weights (this GPU)');
  if (typeof d.adapter_bytes === 'number') bytes('adapter_bytes', 'Adapter weights (this GPU)');
  if (typeof result.per_gpu.dequant_workspace === 'number')
    bytes('dequant_workspace', 'Dequantization workspace (this GPU)', result.per_gpu.dequant_workspace);
  if (typeof d.paged_optimizer_bytes === 'number') {
    bytes('paged_optimizer_bytes', 'Paged optimizer states (unified memory, outside PyTorch\'s allocator)');
    if (typeof d.paged_optimizer_resident_bytes === 'number') bytes('paged_optimizer_resident_bytes', '… resident on the GPU (nvidia-smi)');
    if (d.paged_optimizer_host_bytes) bytes('paged_optimizer_host_bytes', '… paged out to host memory');
  }
  if (typeof d.offloaded_activation_bytes === 'number') bytes('offloaded_activation_bytes', 'Activations offloaded to host memory');
  if (d.host_bytes_per_node) bytes('host_bytes_per_node', 'Host memory per node (offload)');
  if (!analysis) {
    add('What fits', result.gpu ? 'computed with the views below (the longest sequence, largest micro-batch and rank; see their status line if they were stopped)'
      : 'give a GPU size to see the longest sequence, largest micro-batch and rank', 'limits');
  } else if (analysis.estimate.gpu) {
    const l = analysis.limits;
    const none = 'none — even 1 does not fit';
    add(`Longest sequence at micro-batch ${formatCount(usedValue(result, 'train.micro_batch'))}`,
      l.max_seq_len === null ? none : formatCount(l.max_seq_len) + ' tokens', 'max_seq_len');
    add(`Largest micro-batch at ${formatCount(usedValue(result, 'train.seq_len'))} tokens`,
      l.max_micro_batch === null ? none : formatCount(l.max_micro_batch), 'max_micro_batch');
    if ('max_adapter_rank' in l && usedValue(result, 'train.adapter_type') !== 'none')
      add('Largest adapter rank', l.max_adapter_rank === null ? none : formatCount(l.max_adapter_rank), 'max_adapter_rank');
  }
  $('finetune-figures').replaceChildren(...items);
}
