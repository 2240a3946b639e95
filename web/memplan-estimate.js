// <memplan-estimate>: a custom element (shadow DOM, no framework) that shows the core's answer for a
// configuration given as attributes, as a compact card: the verdict, the per-GPU total, the parts as a
// stacked bar and a short table, and the assumptions in one line.
//   <script type="module" src="memplan-estimate.js"></script>
//   <memplan-estimate model="llama-2-7b" gpus="8" zero="2" gpu="h100-sxm-80gb"></memplan-estimate>
//   <memplan-estimate model="Qwen/Qwen3-0.6B" mode="infer"></memplan-estimate>  (a Hub model's config.json:
//   memplan-estimate-hub.js, imported only for one)
// Every number is the core's (mp.estimate); attributes are mapped onto the core's schema paths
// (mp.schema()) and numbers are read as each field reads them (mp.parseField), so ranges and messages
// are the core's. Nothing from an attribute or a fetched file is inserted as HTML (textContent only).
// All elements of a page share one loaded module: the estimate-only core of memplan-lite.js, whose
// load() is memoized.
// Custom elements: https://html.spec.whatwg.org/multipage/custom-elements.html
import { load } from './memplan-lite.js';
import { partsOf } from './explain.js';
import { barGeometry } from './chart.js';
import { formatBytes, formatCount, formatParams } from './format.js';

// Performance marks for `npm run measure`: this module evaluated, and the first card of the page to show
// an answer (scripts/measure-budgets.mjs, docs/budgets.md).
const MARKS = typeof performance === 'object' && typeof performance.mark === 'function';
if (MARKS) performance.mark('memplan-estimate:module');
let answered = false;

/** Attribute → schema path (mp.schema().fields[].path); the values are read by the field's type. */
const FIELDS = Object.freeze([
  ['mode', 'mode'],
  ['gpus', 'parallel.gpus'],
  ['tp', 'parallel.tp'],
  ['pp', 'parallel.pp'],
  ['zero', 'parallel.zero_stage'],
  ['seq', 'train.seq_len'],
  ['micro-batch', 'train.micro_batch'],
  ['context', 'infer.context_len'],
  ['batch', 'infer.batch'],
  ['engine', 'infer.engine'],
  ['max-model-len', 'infer.max_model_len'],
]);
const PATH_OF = new Map(FIELDS);
const ATTRIBUTE_OF = new Map([...FIELDS.map(([a, p]) => [p, a]), ['model.preset', 'model'], ['gpu.memory_bytes', 'gpu'], ['recipe', 'recipe']]);
/** Attributes of the element's own (besides FIELDS). */
const OWN = ['model', 'hf-config-src', 'gpu', 'recipe', 'units', 'config', 'editable'];
const OBSERVED = [...FIELDS.map(([a]) => a), ...OWN];
/** Attributes every HTML element may carry; not reported as unknown. */
const GLOBAL = new Set(['id', 'class', 'style', 'title', 'lang', 'dir', 'hidden', 'slot', 'part', 'tabindex', 'role',
  'translate', 'inert', 'nonce', 'autofocus', 'exportparts', 'is', 'accesskey', 'draggable', 'spellcheck', 'contenteditable']);
/** The assumptions line: these fields, for the mode they apply to (the schema's `modes`). */
const SUMMARY = ['parallel.gpus', 'parallel.tp', 'parallel.pp', 'parallel.zero_stage', 'train.seq_len', 'train.micro_batch',
  'train.weight_dtype', 'train.recompute', 'infer.context_len', 'infer.batch', 'infer.weight_dtype', 'infer.kv_dtype', 'infer.engine'];
const UNITS = ['GB', 'GiB'];
/** A config.json larger than this is refused (the largest Hugging Face configs are tens of KiB). */
const MAX_CONFIG_BYTES = 1 << 20;
const FETCH_TIMEOUT_MS = 15000;

const STYLE = `
:host { display: block; max-width: 40rem; margin: 1rem 0;
  --memplan-bg: #fff; --memplan-fg: #1b1f24; --memplan-muted: #57606a; --memplan-border: #d0d7de;
  --memplan-fit: #1a7f37; --memplan-no-fit: #cf222e; --memplan-error: #cf222e; --memplan-warning: #9a6700;
  --memplan-radius: 8px; --memplan-font: system-ui, sans-serif;
  --memplan-weights: #4e79a7; --memplan-gradients: #f28e2b; --memplan-optimizer_states: #e15759;
  --memplan-activations: #76b7b2; --memplan-logits: #59a14f; --memplan-communication: #edc948;
  --memplan-kv_cache: #b07aa1; --memplan-dequant_workspace: #ff9da7; --memplan-misc: #9c755f; }
@media (prefers-color-scheme: dark) {
  :host { --memplan-bg: #161b22; --memplan-fg: #e6edf3; --memplan-muted: #9198a1; --memplan-border: #3d444d;
    --memplan-fit: #3fb950; --memplan-no-fit: #f85149; --memplan-error: #f85149; --memplan-warning: #d29922; }
}
:host([hidden]), [hidden] { display: none !important; }
.card { background: var(--memplan-bg); color: var(--memplan-fg); border: 1px solid var(--memplan-border);
  border-radius: var(--memplan-radius); padding: .75rem 1rem; font: 14px/1.4 var(--memplan-font); }
.verdict { font-weight: 600; margin: 0 0 .25rem; }
.verdict.fits { color: var(--memplan-fit); } .verdict.no-fit { color: var(--memplan-no-fit); }
.total { font-size: 1.5em; font-weight: 700; margin: 0; font-variant-numeric: tabular-nums; }
.bar { position: relative; display: flex; height: .9rem; margin: .5rem 0; border-radius: 3px; overflow: hidden;
  background: var(--memplan-border); }
.bar span { display: block; height: 100%; }
.bar .capacity { position: absolute; top: 0; bottom: 0; width: 2px; background: var(--memplan-fg); }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
caption { text-align: left; color: var(--memplan-muted); font-size: .9em; }
td { padding: .1rem .25rem; border-top: 1px solid var(--memplan-border); }
td.num { text-align: right; white-space: nowrap; }
tr.sum td { font-weight: 600; }
.swatch { display: inline-block; width: .7em; height: .7em; margin-right: .4em; border-radius: 2px; }
.assumptions, .warnings, .status { color: var(--memplan-muted); font-size: .9em; margin: .4rem 0 0; }
.warnings { color: var(--memplan-warning); }
.errors { color: var(--memplan-error); margin: .25rem 0; padding-left: 1.2rem; }
form { display: flex; flex-wrap: wrap; gap: .5rem .75rem; margin: 0 0 .5rem; }
form label { display: flex; flex-direction: column; font-size: .85em; color: var(--memplan-muted); }
form input, form select { font: inherit; color: var(--memplan-fg); background: var(--memplan-bg);
  border: 1px solid var(--memplan-border); border-radius: 4px; padding: .15rem .3rem; min-width: 5rem; }
form [aria-invalid="true"] { border-color: var(--memplan-error); }
form input:focus-visible, form select:focus-visible { outline: 2px solid var(--memplan-fg); outline-offset: 1px; }
.field-error { color: var(--memplan-error); font-size: .85em; max-width: 16rem; }
@media print {
  :host { break-inside: avoid; --memplan-bg: #fff; --memplan-fg: #000; --memplan-muted: #333; }
  .card { border-color: #000; }
  .bar, .swatch { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
  form { display: none; }
}
`;

let sheet = null;
function styleFor(root) {
  // A constructed style sheet where supported (one object for every element of the page); else <style>.
  if (typeof CSSStyleSheet === 'function' && 'adoptedStyleSheets' in root) {
    if (!sheet) { sheet = new CSSStyleSheet(); sheet.replaceSync(STYLE); }
    root.adoptedStyleSheets = [sheet];
    return null;
  }
  const style = document.createElement('style');
  style.textContent = STYLE;
  return style;
}

function el(tag, text, attrs = {}) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

function setPath(object, path, value) {
  const keys = path.split('.');
  let at = object;
  for (const key of keys.slice(0, -1)) {
    if (at[key] === null || typeof at[key] !== 'object' || Array.isArray(at[key])) at[key] = {};
    at = at[key];
  }
  at[keys[keys.length - 1]] = value;
}

function getPath(object, path) {
  let at = object;
  for (const key of path.split('.')) {
    if (at === null || typeof at !== 'object') return undefined;
    at = at[key];
  }
  return at;
}

/** An error of one attribute: {attribute, message}; the message is the core's where the core found it. */
class AttributeError extends Error {
  constructor(attribute, message) {
    super(message);
    this.attribute = attribute;
  }
}

/** A config.json fetched once per URL for every element of the page, bounded in size and time. */
const configFetches = new Map();
function fetchConfig(url) {
  if (!configFetches.has(url)) {
    const promise = fetchConfigOnce(url);
    configFetches.set(url, promise);
    promise.catch(() => configFetches.delete(url));  // a later render may retry
  }
  return configFetches.get(url);
}

async function fetchConfigOnce(src) {
  const fail = (message) => { throw new AttributeError('hf-config-src', message); };
  let url;
  try { url = new URL(src, document.baseURI); } catch { fail('is not a URL'); }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), FETCH_TIMEOUT_MS);
  try {
    let response;
    try {
      response = await fetch(url, { signal: controller.signal, credentials: 'same-origin' });
    } catch {
      fail(controller.signal.aborted ? `no answer within ${FETCH_TIMEOUT_MS / 1000} s` : 'could not be fetched (network error or blocked by CORS)');
    }
    if (!response.ok) fail(`could not be fetched: HTTP ${response.status}`);
    const type = response.headers.get('content-type') || '';
    if (/html/i.test(type)) fail('returned an HTML page, not a config.json (link the raw file)');
    const length = Number(response.headers.get('content-length'));
    if (length > MAX_CONFIG_BYTES) fail(`is too large (${length} bytes; at most ${MAX_CONFIG_BYTES})`);
    // Read with a cap: a server may send more than it announces, or announce nothing.
    const reader = response.body.getReader();
    const chunks = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > MAX_CONFIG_BYTES) { reader.cancel(); fail(`is too large (more than ${MAX_CONFIG_BYTES} bytes)`); }
      chunks.push(value);
    }
    const text = new TextDecoder().decode(await new Blob(chunks).arrayBuffer());
    if (/^\s*</.test(text)) fail('returned HTML, not a config.json (link the raw file)');
    let parsed;
    try { parsed = JSON.parse(text); } catch { fail('is not valid JSON'); }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) fail('must hold a JSON object (a config.json)');
    return parsed;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The configuration the attributes describe: {config, hfSrc, unit, unknown, errors}. Numbers go
 * through mp.parseField; ranges, choices and the rest are checked by the core's estimate.
 */
function readAttributes(element, mp) {
  const errors = [];
  const fields = new Map(mp.schema().fields.map((f) => [f.path, f]));
  let config = {};
  const configText = element.getAttribute('config');
  if (configText !== null && configText.trim() !== '') {
    try {
      const parsed = JSON.parse(configText);
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      config = parsed;
    } catch {
      errors.push(new AttributeError('config', 'must be a JSON object (a memplan configuration, docs/schema.md)'));
    }
  }
  for (const [attribute, path] of FIELDS) {
    const text = element.getAttribute(attribute);
    if (text === null) continue;
    const field = fields.get(path);
    if (!field) { errors.push(new AttributeError(attribute, `the core has no field ${path}`)); continue; }
    if (field.type === 'integer' || field.type === 'bytes') {
      try {
        // The field's own reading (mp.parseField: "32K" tokens as vLLM reads them, "90%", "80GB"); its
        // range is checked by the estimate, whose message is the schema's ("must be 0, 1, 2 or 3").
        setPath(config, path, mp.parseField(text.trim(), path).value);
      } catch (error) {
        errors.push(new AttributeError(attribute, error.message));
      }
    } else {
      setPath(config, path, text.trim());
    }
  }
  const model = element.getAttribute('model');
  let hub = null;
  if (model !== null) {
    // A value with a '/' that is no preset id names a model on the Hugging Face Hub (org/name,
    // org/name@revision or its link, read by the core): its config.json replaces the model.
    const id = model.trim();
    if (id.includes('/') && !mp.presetNames().some((p) => p.id === id)) hub = id;
    else {
      if (typeof config.model !== 'object' || config.model === null) config.model = {};
      config.model.preset = id;
    }
  }
  const gpu = element.getAttribute('gpu');
  let gpuEntry = null;
  if (gpu !== null) {
    gpuEntry = mp.gpu(gpu.trim());  // one entry: the whole catalogue is read only by the editable form
    if (gpuEntry) {
      setPath(config, 'gpu.memory_bytes', gpuEntry.capacity_bytes);
      setPath(config, 'gpu.name', gpuEntry.id);  // the core's engine defaults that depend on the GPU's name (vLLM's A100 rule)
    }
    else {
      const guess = mp.searchGpus(gpu)[0];
      errors.push(new AttributeError('gpu', 'must be a GPU id of the catalogue (mp.gpus(), memplan gpus)' +
        (guess ? `, such as ${guess}` : '')));
    }
  }
  const unitText = element.getAttribute('units');
  let unit = 'GiB';
  if (unitText !== null) {
    if (UNITS.includes(unitText.trim())) unit = unitText.trim();
    else errors.push(new AttributeError('units', 'must be GB or GiB'));
  }
  const known = new Set(OBSERVED);
  const unknown = element.getAttributeNames().filter((n) => !known.has(n) && !GLOBAL.has(n) &&
    !n.startsWith('data-') && !n.startsWith('aria-') && !n.startsWith('on'));
  const hfSrc = element.getAttribute('hf-config-src');
  if (hub && hfSrc !== null) errors.push(new AttributeError('model', 'names a Hub model and hf-config-src a config.json: give one of them'));
  // A fine-tuning recipe (mp.recipes()) is applied by the core over the configuration (options.recipe,
  // as the CLI's --recipe); an unknown id or a run mode that does not read its fields is its error.
  const recipeText = element.getAttribute('recipe');
  const recipe = recipeText !== null && recipeText.trim() !== '' ? recipeText.trim() : null;
  return { config, hfSrc: hfSrc && hfSrc.trim() ? hfSrc.trim() : null, hub, unit, unknown, errors, gpuEntry, recipe };
}

/** The attribute a core error is about (its field path), for inline messages. */
function attributeFor(field, element) {
  if (ATTRIBUTE_OF.has(field) && element.hasAttribute(ATTRIBUTE_OF.get(field))) return ATTRIBUTE_OF.get(field);
  if ((field === 'hf_config' || field.startsWith('hf_config.') || field.startsWith('model.')) && element.hasAttribute('hf-config-src')) return 'hf-config-src';
  if ((field.startsWith('hf_config') || field.startsWith('model.')) && element.hasAttribute('model')) return 'model';
  if (element.hasAttribute('config')) return 'config';
  return ATTRIBUTE_OF.get(field) || 'config';
}

export class MemplanEstimate extends HTMLElement {
  static get observedAttributes() { return OBSERVED; }

  #result = null;
  #errors = [];
  #pending = null;
  #generation = 0;
  #formKey = '';

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    const style = styleFor(root);
    this.card = el('section', null, { class: 'card', part: 'card', role: 'group', 'aria-label': 'GPU memory estimate (memplan)' });
    this.form = el('form', null, { part: 'form' });
    this.form.hidden = true;
    this.form.addEventListener('submit', (event) => event.preventDefault());
    this.verdict = el('p', null, { class: 'verdict', part: 'verdict', role: 'status' });
    this.total = el('p', null, { class: 'total', part: 'total' });
    this.bar = el('div', null, { class: 'bar', part: 'bar', role: 'img' });
    this.table = el('table', null, { part: 'table' });
    this.errorList = el('ul', null, { class: 'errors', part: 'errors', role: 'alert' });
    this.assumptions = el('p', null, { class: 'assumptions', part: 'assumptions' });
    this.warnings = el('p', null, { class: 'warnings', part: 'warnings' });
    this.verdict.textContent = 'Loading memplan…';
    this.card.append(this.form, this.verdict, this.total, this.bar, this.table, this.errorList, this.assumptions, this.warnings);
    for (const node of [this.total, this.bar, this.table, this.errorList, this.assumptions, this.warnings]) node.hidden = true;
    if (style) root.append(style);
    root.append(this.card);
  }

  /** The core's result object (mp.estimate) of the current attributes; null while loading or when invalid. */
  get result() { return this.#result; }

  /** The current attribute errors: [{attribute, message}] (empty when the estimate succeeded). */
  get errors() { return this.#errors.map((e) => ({ attribute: e.attribute, message: e.message })); }

  /** A promise that settles once the element shows its current attributes. */
  get updateComplete() { return this.#pending || Promise.resolve(); }

  connectedCallback() { this.#schedule(); }

  attributeChangedCallback(name, before, after) {
    if (before !== after && this.isConnected) this.#schedule();
  }

  #schedule() {
    const generation = ++this.#generation;
    // Coalesce the attribute changes of one task into one estimate (only the latest one runs).
    this.#pending = Promise.resolve().then(() => (generation === this.#generation ? this.#update(generation) : undefined));
  }

  async #update(generation) {
    let mp;
    try {
      mp = await load();
    } catch (error) {
      this.#show([new AttributeError(null, 'the memplan module could not be loaded: ' + error.message)], null);
      return;
    }
    const read = readAttributes(this, mp);
    let hfConfig;
    let errors = read.errors;
    if (read.hfSrc && !errors.length) {
      this.card.dataset.state = 'loading';
      try { hfConfig = await fetchConfig(read.hfSrc); } catch (error) {
        errors = [error instanceof AttributeError ? error : new AttributeError('hf-config-src', String(error.message))];
      }
      if (generation !== this.#generation) return;
    }
    if (read.hub && !errors.length) {
      // The Hub's reader is loaded only for a Hub model; no figure is shown until its config.json is read.
      this.#result = null;
      this.card.dataset.state = 'loading';
      this.verdict.className = 'verdict';
      delete this.verdict.dataset.approximate;
      this.verdict.textContent = `Loading ${read.hub} from the Hugging Face Hub…`;
      for (const node of [this.total, this.bar, this.table, this.errorList, this.assumptions]) node.hidden = true;
      try {
        read.fetched = await (await import('./memplan-estimate-hub.js')).hubConfig(read.hub);
        hfConfig = read.fetched.text;
      } catch (error) {
        errors = [new AttributeError('model', String(error.message))];
      }
      if (generation !== this.#generation) return;
    }
    let result = null;
    if (!errors.length) {
      try {
        const options = {};
        if (hfConfig) options.hfConfig = hfConfig;
        if (read.recipe) options.recipe = read.recipe;
        result = mp.estimate(read.config, Object.keys(options).length ? options : undefined);
      } catch (error) {
        const list = error.errors && error.errors.length ? error.errors : [{ field: 'config', message: error.message }];
        errors = list.map((e) => {
          const attribute = attributeFor(e.field, this);
          return new AttributeError(attribute, (read.fetched && attribute === 'model' ? read.fetched.where + ': ' : '') + `${e.field}: ${e.message}`);
        });
      }
    }
    if (generation !== this.#generation) return;
    this.#renderForm(mp, read, errors);
    this.#show(errors, result, mp, read, hfConfig);
    if (result) this.dispatchEvent(new CustomEvent('memplan-change', { detail: result, bubbles: true, composed: true }));
  }

  #show(errors, result, mp, read, hfConfig) {
    this.#errors = errors;
    this.#result = result;
    this.card.dataset.state = result ? 'ready' : 'error';
    this.errorList.replaceChildren(...errors.filter((e) => !(this.hasAttribute('editable') && this.#inForm(e.attribute)))
      .map((e) => el('li', e.attribute ? `${e.attribute}: ${e.message}` : e.message, { 'data-attribute': e.attribute || '' })));
    this.errorList.hidden = this.errorList.childElementCount === 0;
    for (const node of [this.total, this.bar, this.table, this.assumptions]) node.hidden = !result;
    const warnings = [];
    if (read && read.unknown.length) warnings.push('Unknown attributes (ignored): ' + read.unknown.join(', '));
    if (result) for (const w of result.warnings) warnings.push(`${w.field}: ${w.message}`);
    this.warnings.textContent = warnings.join(' · ');
    this.warnings.hidden = warnings.length === 0;
    if (!result) {
      this.verdict.className = 'verdict';
      delete this.verdict.dataset.approximate;
      this.verdict.textContent = errors.length === 1 ? 'Cannot estimate: one setting is invalid.' : `Cannot estimate: ${errors.length} settings are invalid.`;
      return;
    }
    const unit = read.unit;
    const b = result.per_gpu;
    const capacity = result.gpu ? result.gpu.capacity_bytes : 0;
    if (!result.gpu) {
      this.verdict.className = 'verdict';
      this.verdict.textContent = 'No GPU given: no fit verdict.';
    } else if (result.gpu.fits) {
      this.verdict.className = 'verdict fits';
      this.verdict.textContent = `Fits: ${formatBytes(result.gpu.headroom_bytes, unit)} headroom of ${formatBytes(capacity, unit)}` +
        (read.gpuEntry ? ` (${read.gpuEntry.name})` : '') + '.';
    } else {
      this.verdict.className = 'verdict no-fit';
      this.verdict.textContent = `Does not fit: ${formatBytes(result.gpu.shortfall_bytes, unit)} more than ${formatBytes(capacity, unit)}` +
        (read.gpuEntry ? ` (${read.gpuEntry.name})` : '') + '.';
    }
    // The core marks a verdict resting on assumptions (a model known by its stored bytes): said so.
    if (result.gpu && result.gpu.approximate) {
      this.verdict.textContent += ' Approximate: model known only by its stored bytes and declared sizes; see warnings.';
      this.verdict.dataset.approximate = 'true';
    } else delete this.verdict.dataset.approximate;
    this.verdict.dataset.fits = result.gpu ? String(result.gpu.fits) : '';
    this.total.textContent = `${formatBytes(b.total, unit)} per GPU`;
    this.total.dataset.bytes = String(b.total);
    // The parts and their labels as the core names them for this mode (mp.explanations()).
    const mode = getPath(read.config, 'mode') ?? mp.schema().fields.find((f) => f.path === 'mode').default;
    const ROWS = partsOf(mp.explanations()[mode]).map((row) => [row.key, row.label]);
    const label = Object.fromEntries(ROWS);
    const geometry = barGeometry(ROWS.map(([key]) => [key, b[key]]), b.total, capacity);
    const segments = geometry.segments.map((s) => {
      const seg = el('span', null, { part: 'segment segment-' + s.key, title: `${label[s.key]}: ${formatBytes(b[s.key], unit)}` });
      seg.style.width = s.percent + '%';
      seg.style.background = `var(--memplan-${s.key})`;
      return seg;
    });
    if (geometry.capacityPercent !== null) {
      const mark = el('span', null, { class: 'capacity', part: 'capacity', title: `GPU capacity ${formatBytes(capacity, unit)}` });
      mark.style.left = `calc(${geometry.capacityPercent}% - 1px)`;
      segments.push(mark);
    }
    this.bar.replaceChildren(...segments);
    this.bar.setAttribute('aria-label', 'Parts of the per-GPU total: ' +
      ROWS.filter(([key]) => b[key]).map(([key, name]) => `${name} ${formatBytes(b[key], unit)}`).join(', '));
    const rows = ROWS.filter(([key]) => b[key]).map(([key, name]) => {
      const tr = el('tr', null, { 'data-part': key });
      const swatch = el('span', null, { class: 'swatch', 'aria-hidden': 'true' });
      swatch.style.background = `var(--memplan-${key})`;
      const cell = el('td');
      cell.append(swatch, name);
      tr.append(cell, el('td', formatBytes(b[key], unit), { class: 'num', 'data-bytes': String(b[key]) }));
      return tr;
    });
    const sum = el('tr', null, { class: 'sum', 'data-part': 'total' });
    sum.append(el('td', 'Total per GPU'), el('td', formatBytes(b.total, unit), { class: 'num', 'data-bytes': String(b.total) }));
    const caption = el('caption', 'Per-GPU memory, most loaded GPU');
    const body = el('tbody');
    body.append(...rows, sum);
    this.table.replaceChildren(caption, body);
    this.assumptions.textContent = this.#assumptions(mp, read, result, hfConfig);
    if (!answered && MARKS) { answered = true; performance.mark('memplan-estimate:first-answer'); }
  }

  #assumptions(mp, read, result, hfConfig) {
    const fields = new Map(mp.schema().fields.map((f) => [f.path, f]));
    const value = (path) => {
      const given = getPath(read.config, path);
      return given !== undefined ? given : fields.get(path).default;
    };
    const mode = value('mode');
    const preset = getPath(read.config, 'model.preset');
    const entry = preset ? mp.presetNames().find((p) => p.id === preset) : null;
    const model = read.fetched ? `${read.fetched.id} (${result.config.model.model_type})`
      : hfConfig ? `config.json (${hfConfig.model_type || 'model'})` : entry ? entry.name : 'custom model';
    const parts = [mode === 'infer' ? 'Inference' : 'Training', `${model}, ${formatParams(result.params)} parameters`];
    for (const path of SUMMARY) {
      const field = fields.get(path);
      if (!field || !field.modes.includes(mode)) continue;
      const v = value(path);
      if (v === null || v === undefined) continue;
      parts.push(`${field.label} ${typeof v === 'number' ? formatCount(v) : v}`);
    }
    if (read.recipe) {
      const recipe = mp.recipes().find((r) => r.id === read.recipe);
      if (recipe) parts.push(recipe.label);
    }
    if (read.gpuEntry) parts.push(read.gpuEntry.name);
    return parts.join(' · ');
  }

  #inForm(attribute) {
    return this.hasAttribute('editable') && attribute !== null && OBSERVED.includes(attribute) && !['config', 'editable', 'hf-config-src'].includes(attribute) && this.hasAttribute(attribute);
  }

  /** editable: a small form of the attributes given (labels, choices from the core's schema and catalogues). */
  #renderForm(mp, read, errors) {
    if (!this.hasAttribute('editable')) { this.form.hidden = true; this.form.replaceChildren(); this.#formKey = ''; return; }
    const names = OBSERVED.filter((n) => this.hasAttribute(n) && !['config', 'editable', 'hf-config-src'].includes(n));
    const key = names.join(' ');
    const fields = new Map(mp.schema().fields.map((f) => [f.path, f]));
    if (key !== this.#formKey) {
      this.#formKey = key;
      this.form.replaceChildren(...names.map((name) => {
        const label = el('label');
        let control;
        let choices = null;
        let text = name;
        if (name === 'model') { choices = mp.presetNames().map((p) => [p.id, p.name]); text = 'Model'; }
        else if (name === 'gpu') { choices = mp.gpus().map((g) => [g.id, g.name]); text = 'GPU'; }
        else if (name === 'units') { choices = UNITS.map((u) => [u, u]); text = 'Units'; }
        else if (name === 'recipe') { choices = mp.recipes().map((r) => [r.id, r.label]); text = 'Recipe'; }
        else {
          const field = fields.get(PATH_OF.get(name));
          text = field ? field.label : name;
          if (field && field.type === 'choice') choices = field.choices.map((c) => [c, c]);
        }
        if (choices) {
          control = el('select', null, { name });
          control.append(...choices.map(([v, t]) => el('option', t, { value: v })));
        } else {
          control = el('input', null, { name, type: 'text', inputmode: 'numeric', autocomplete: 'off', size: '8' });
        }
        const message = el('span', null, { class: 'field-error', id: 'error-' + name, part: 'field-error' });
        message.hidden = true;
        control.setAttribute('aria-describedby', 'error-' + name);
        control.addEventListener('change', () => this.setAttribute(name, control.value));
        label.append(text, control, message);
        return label;
      }));
    }
    this.form.hidden = names.length === 0;
    for (const control of this.form.querySelectorAll('input, select')) {
      const name = control.name;
      const value = this.getAttribute(name) ?? '';
      if (control.tagName === 'SELECT' && ![...control.options].some((o) => o.value === value)) {
        control.append(el('option', value, { value }));  // an invalid value stays visible, with its error
      }
      if (control.value !== value) control.value = value;
      const own = errors.filter((e) => e.attribute === name);
      const message = this.shadowRoot.getElementById('error-' + name);
      message.textContent = own.map((e) => e.message).join('; ');
      message.hidden = own.length === 0;
      control.setAttribute('aria-invalid', String(own.length > 0));
    }
  }
}

if (!customElements.get('memplan-estimate')) customElements.define('memplan-estimate', MemplanEstimate);
