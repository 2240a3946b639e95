// memplan page — loading a model from the Hugging Face Hub (what web/hub.js describes): fetching each
// file (hub-fetch.js), the core's readers of what came, and the result's tables in the Hub box. Imported
// by hub.js the first time a model is loaded; its state (token, model, limits, load counts) stays in
// hub.js and comes with each call.
import { $, el } from './dom.js';
import { formatBytes, formatCount, formatExactBytes } from './format.js';
import { HubError, hubGet as fetchFromHub } from './hub-fetch.js';

/** hub.js's state and its setState / showErrors, as the latest load was given them. */
let hub;
let setState;
let showErrors;

/** One GET of `url` (hub-fetch.js) under the load's limits, with the token typed. */
const hubGet = (url, file, options = {}) => fetchFromHub(url, file, { limits: hub.limits, token: hub.token, ...options });

/**
 * The core's MemplanError as HubErrors: the core names the file in each error's field; the errors
 * about a config.json (fields hf_config.KEY, model.KEY) name its key, as a pasted one's do.
 */
function coreErrors(error, file) {
  return (error.errors || [{ field: file, message: error.message }]).map((e) => {
    const field = String(e.field || file);
    if (file !== 'config.json') return new HubError(field, e.message, 'text');
    const key = field.replace(/^(hf_config|model|config)\.?/, '');
    return new HubError(key ? 'config.json ' + key : 'config.json', e.message, 'text');
  });
}

/** The core's answer to `call()`, or null with its errors (HubErrors naming `file`, coreErrors) added to `problems`. */
function fromCore(call, file, problems) {
  try {
    return call();
  } catch (error) {
    problems.push(...coreErrors(error, file));
    return null;
  }
}

/** The header of one safetensors file: its length from the first 8 bytes, then the header itself. */
async function fetchHeader(mp, model, file) {
  const url = model.files_url + file;
  const first = await hubGet(url, file, { range: 'bytes=0-7', bytes: true, limit: 8, revision: model.revision });
  let range;
  try {
    range = mp.safetensorsRange(first.body, first.contentRange, file);
  } catch (error) {
    throw coreErrors(error, file)[0];
  }
  const header = await hubGet(url, file, { range: range.range, bytes: true, limit: range.length, revision: model.revision });
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(header.body);
  } catch {
    throw new HubError(file, 'has a header that is not UTF-8 text', 'text');
  }
  return { file, length: range.length, header: text };
}

/** Runs work(item) for each item, at most `parallel` at once: [{ok, value} | {ok: false, error}] in order. */
async function inPool(items, parallel, work) {
  const out = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]).then((value) => ({ ok: true, value }), (error) => ({ ok: false, error }));
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, items.length) }, worker));
  return out;
}
function showStatus(text) {
  $('hub-status').textContent = text;
}
const cell = (tag, text, attrs) => el(tag, text, attrs);
const bytesText = (bytes) => `${formatExactBytes(bytes)} (${formatBytes(bytes, 'GiB')})`;

/** The stored bytes per dtype beside memplan's count, and the reconciliation by part (headers) or as a whole (API). */
function renderResult(model, result, source, files) {
  const out = $('hub-result');
  const dtypes = el('table', null, { id: 'hub-dtypes' });
  dtypes.append(el('caption', source === 'headers' ? 'Stored in the safetensors files (read from their headers)'
    : 'Stored in the safetensors files (the Hub API\'s counts per dtype)'));
  const head = el('tr');
  head.append(cell('th', 'dtype'), cell('th', 'values'), cell('th', 'bytes'));
  dtypes.append(el('thead'), el('tbody'));
  dtypes.tHead.append(head);
  for (const [dtype, d] of Object.entries(result.stored.by_dtype)) {
    const row = el('tr', null, { 'data-dtype': dtype });
    row.append(cell('td', dtype), cell('td', formatCount(d.values), { class: 'num', 'data-values': String(d.values) }),
      cell('td', bytesText(d.bytes), { class: 'num', 'data-bytes': String(d.bytes) }));
    dtypes.tBodies[0].append(row);
  }
  const total = el('tr', null, { 'data-dtype': 'total' });
  total.append(cell('th', 'all'), cell('td', formatCount(result.stored.values), { class: 'num', 'data-values': String(result.stored.values) }),
    cell('td', bytesText(result.stored.bytes), { class: 'num', 'data-bytes': String(result.stored.bytes) }));
  dtypes.tBodies[0].append(total);
  const count = el('p', null, { id: 'hub-count', 'data-params': String(result.params) });
  count.textContent = `memplan counts ${formatCount(result.params)} parameters for ${model.id} (${result.model_type}); ` +
    (source === 'headers' ? `the checkpoint stores ${formatCount(result.stored.values)} values in ${formatCount(result.stored.tensors)} tensors of ${files.length} ${files.length === 1 ? 'file' : 'files'}.`
      : `the Hub API counts ${formatCount(result.stored.values)} stored values.`);
  const parts = [];
  if (source === 'headers') {
    const table = el('table', null, { id: 'hub-parts' });
    table.append(el('caption', 'memplan\'s count beside the stored tensors, by part'), el('thead'), el('tbody'));
    const h = el('tr');
    h.append(cell('th', 'part'), cell('th', 'memplan'), cell('th', 'stored'), cell('th', 'difference'), cell('th', 'why'));
    table.tHead.append(h);
    for (const p of result.parts) {
      const row = el('tr', null, { 'data-part': p.part });
      row.append(cell('td', p.part), cell('td', formatCount(p.memplan), { class: 'num' }), cell('td', formatCount(p.stored), { class: 'num' }),
        cell('td', p.larger === 'neither' ? '—' : `${formatCount(p.difference)} more ${p.larger === 'stored' ? 'stored' : 'in memplan'}`, { class: 'num', 'data-difference': String(p.difference) }),
        cell('td', p.note || ''));
      table.tBodies[0].append(row);
    }
    parts.push(table, el('p', result.unexplained === 0 ? 'Every difference is explained.'
      : `${formatCount(result.unexplained)} values differ with no explanation memplan knows.`, { id: 'hub-unexplained', 'data-unexplained': String(result.unexplained) }));
  } else {
    parts.push(el('p', result.larger === 'neither' ? 'The API\'s count is memplan\'s.'
      : `${formatCount(result.difference)} values more ${result.larger === 'stored' ? 'stored' : 'in memplan\'s count'}: ${result.note}.`, { id: 'hub-difference', 'data-difference': String(result.difference) }));
  }
  out.replaceChildren(count, dtypes, ...parts);
  out.hidden = false;
}

/** The day-one path's assumptions, one line each, in the Hub box (hidden when none). */
function showAssumptions(lines) {
  const box = $('hub-assumptions');
  box.hidden = lines.length === 0;
  box.replaceChildren(...lines.map((line) => el('span', line, { class: 'line' })));
}

/**
 * A config.json the families refuse (`refused`, their errors), estimated by the core's day-one path
 * (mp.dayOneHeaders) from the headers fetched: its model loaded into the form by `applyModel`, every
 * assumption listed. Without headers, or when the day-one path refuses too, the families' errors and
 * then the other problems are shown and nothing is loaded.
 */
function dayOne(mp, model, where, configText, refused, headers, problems, applyModel) {
  const answer = headers ? fromCore(() => mp.dayOneHeaders(configText, headers), 'config.json', problems) : null;
  if (!answer || !answer.model) {
    showErrors([...refused, ...problems]);
    showStatus(headers ? `${where} was not loaded: memplan's families do not count its config.json, and the day-one estimate from its safetensors headers was refused too.`
      : `${where} was not loaded: memplan's families do not count its config.json, and without its safetensors headers there is no day-one estimate.`);
    return setState('failed');
  }
  // Pending while the form takes the model (the link it writes names the id); then the link keeps the id
  // while the text area holds this config.json (written there by applyModel, not read).
  hub.current = { link: model.link, configText: null, pending: true, kept: false };
  applyModel(answer.model, configText);
  hub.current = { link: model.link, configText: $('hf-config')?.value ?? configText, pending: false, kept: false };
  showErrors([]);
  showAssumptions(answer.assumptions);
  showStatus(`Loaded ${where} by the day-one path: memplan's families do not count its config.json, so the model is its checkpoint's ` +
    `${formatCount(answer.stored.tensors)} stored tensors (${bytesText(answer.model.stored_weight_bytes)} of weights) and the sizes the config declares; ` +
    'the estimate is approximate, resting on the assumptions listed.');
  return setState('done', 'day-one');
}

/**
 * Loads `typed` (an id, id@revision or link) from the Hub; `context`: hub.js's {hub, setState,
 * showErrors}; `apply(text)` loads a config.json into the estimate, `applyModel(model)` a memplan model
 * section (the day-one path's).
 */
export async function loadFromHub(context, mp, typed, apply, applyModel, { fromLink = false } = {}) {
  ({ hub, setState, showErrors } = context);
  const run = ++hub.loads;
  const stale = () => run !== hub.loads;
  $('hub-result').hidden = true;
  showErrors([]);
  showAssumptions([]);
  let model;
  try {
    model = mp.hubModel(typed);
  } catch (error) {
    hub.current = null;
    showStatus('');
    showErrors((error.errors || []).map((e) => ({ file: '', message: 'Hub model: ' + e.message })));
    $('hub-model').setAttribute('aria-invalid', 'true');
    return setState('failed');
  }
  $('hub-model').removeAttribute('aria-invalid');
  hub.limits = model.limits;
  hub.current = { link: model.link, configText: null, pending: true, kept: false };
  const where = `${model.id} at ${model.revision}`;
  if (typeof navigator !== 'undefined' && navigator.onLine === false) {
    hub.current = { ...hub.current, pending: false, kept: fromLink };
    showStatus(`The Hub is unreachable (this browser is offline): ${where} was not fetched. The page works as before` +
      (fromLink ? ', with the model fields the link gives.' : '.'));
    return setState('failed');
  }
  setState('loading');
  showStatus(`Fetching ${where} from huggingface.co…`);
  const [config, api, index] = await Promise.allSettled([
    hubGet(model.files_url + 'config.json', 'config.json', { revision: model.revision, limit: hub.limits.max_config_bytes }),
    hubGet(model.api_url, 'Hub API reply', { revision: model.revision }),
    hubGet(model.files_url + 'model.safetensors.index.json', 'model.safetensors.index.json', { revision: model.revision }),
  ]);
  if (stale()) return;
  if (config.status === 'rejected') {
    const error = config.reason;
    const unreachable = error.kind === 'network' || error.kind === 'timeout';
    hub.current = unreachable && fromLink ? { ...hub.current, pending: false, kept: true } : null;
    showStatus(unreachable ? `The Hub is unreachable: ${where} was not fetched. The page works as before` +
      (fromLink ? ', with the model fields the link gives.' : '.') : `${where} was not loaded.`);
    showErrors([error]);
    return setState('failed');
  }
  const configText = config.value.body;
  // The families' refusal of the config.json: the day-one path may still estimate it from the headers.
  let refused = null;
  try {
    const resolved = mp.resolveModel({}, { hfConfig: configText });
    if (resolved.params === null) refused = [new HubError('config.json', 'needs num_hidden_layers, hidden_size and num_attention_heads', 'text')];
  } catch (error) {
    refused = coreErrors(error, 'config.json');
  }
  if (refused) {
    hub.current = null;
    showStatus(`memplan's families do not count the config.json of ${where}; reading the checkpoint's headers for a day-one estimate…`);
    showErrors(refused);
  } else {
    // The estimate follows at once; the checkpoint's figures come when its headers have.
    apply(configText);
    // As the text area holds it (its line breaks normalised): the link keeps the id while it does.
    hub.current = { link: model.link, configText: $('hf-config')?.value ?? configText, pending: false, kept: false };
    showStatus(`Loaded config.json of ${where}; reading the checkpoint's headers…`);
  }
  const problems = [];
  let files = null;
  if (index.status === 'fulfilled') {
    files = fromCore(() => mp.safetensorsIndex(index.value.body, 'model.safetensors.index.json'), 'model.safetensors.index.json', problems);
  } else if (index.reason.kind === 'missing') files = ['model.safetensors'];
  else problems.push(index.reason);
  let headers = null;
  if (files) {
    const fetched = await inPool(files, hub.limits.parallel, (file) => fetchHeader(mp, model, file));
    if (stale()) return;
    for (const f of fetched) if (!f.ok) problems.push(f.error instanceof HubError ? f.error : new HubError('checkpoint', String(f.error), 'text'));
    if (!problems.length) headers = fetched.map((f) => f.value);
  }
  if (refused) return dayOne(mp, model, where, configText, refused, applyModel ? headers : null, problems, applyModel);
  let result = headers ? fromCore(() => mp.checkpointHeaders(configText, headers), 'checkpoint', problems) : null;
  if (result) {
    renderResult(model, result, 'headers', files);
    showStatus(`Loaded ${where}: config.json and the headers of ${files.length} safetensors ${files.length === 1 ? 'file' : 'files'} (their first bytes only).`);
    showErrors([]);
    return setState('done', 'headers');
  }
  // The headers could not be read: the API's per-dtype counts, said so.
  showErrors(problems);
  const cdn = problems.some((p) => p.kind === 'network');
  const why = cdn ? 'the Hub\'s file server (its CDN) did not answer the cross-origin range requests'
    : 'the safetensors headers could not be read';
  if (api.status === 'fulfilled') {
    result = fromCore(() => mp.checkpointApi(configText, api.value.body), 'Hub API reply', problems);
    if (!result) showErrors(problems);
  } else {
    problems.push(api.reason);
    showErrors(problems);
  }
  if (result) {
    renderResult(model, result, 'api', files || []);
    showStatus(`Loaded config.json of ${where}. ${why[0].toUpperCase() + why.slice(1)}: the stored sizes below are the Hub API's per-dtype counts instead (no tensor names, so no reconciliation by part).`);
    return setState('done', 'api');
  }
  showStatus(`Loaded config.json of ${where}; ${why}, and the Hub API gave no per-dtype counts: no stored sizes to show.`);
  return setState('failed');
}
