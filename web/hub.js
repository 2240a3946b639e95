// memplan page — a model loaded from the Hugging Face Hub: a model id, revision or huggingface.co link
// typed into #hub-model is read by the core (mp.hubModel, core/src/io/hub.cpp: the id is a rule
// of the Hub's, so it lives in the core with the other rules), then this module fetches (each request
// by hub-fetch.js, which the element's model="org/name" shares) and the core reads what came:
//   config.json                         {files_url}config.json, loaded into the estimate exactly as a
//                                       pasted one is (the #hf-config text area, config-import.js)
//   the Hub API entry                   {api_url}: its safetensors.parameters per-dtype counts
//   model.safetensors.index.json        the shards of a sharded checkpoint (mp.safetensorsIndex refuses
//                                       a name with '/', '\' or "..")
//   each shard's header                 "Range: bytes=0-7" (the header's length, mp.safetensorsRange:
//                                       refused beyond 100,000,000 bytes or the file), then the header's
//                                       own range; mp.checkpointHeaders reconciles the tensors with
//                                       memplan's count (what `memplan checkpoint` prints)
// Addresses: the Hub API documentation (https://huggingface.co/docs/hub/api) and huggingface_hub's
// hf_hub_url ({endpoint}/{repo_id}/resolve/{revision}/{filename}); the file server answers a resolve
// of a large file with a redirect to its CDN. When a header cannot be read (the CDN refusing the
// cross-origin range request, a time-out, a bad header), the page says so naming the file and shows the
// API's per-dtype counts instead (mp.checkpointApi). Every figure shown comes from the core; every
// fetched text is shown with textContent only. The access token lives in this module's memory only:
// sent as "Authorization: Bearer", never put in the link, localStorage or the page state.
//
// A config.json the families refuse is estimated by the core's day-one path (mp.dayOneHeaders) from the
// headers fetched: its model section loaded into the form, its assumptions listed (#hub-assumptions).
//
// Signals for tests: #hub-box gets data-state "loading", then "done" or "failed" (data-source
// "headers", "api" or "day-one" with a result), and data-runs counts finished loads.
//
// The loading itself (fetching, the core's readers, the result's tables: hub-load.js with hub-fetch.js)
// is a module of its own, imported the first time a model is loaded, so the page's first download
// carries only this box's wiring.
import { $, el } from './dom.js';

// The bounds of fetching (the longest one request may take, the shards fetched at once, the largest
// reply read) are the core's, given with the model (mp.hubModel(...).limits).

/**
 * The Hub box's state, shared with hub-load.js: the token typed (in memory only); the model loaded or
 * being loaded, {link, configText, pending, kept} (null when none); the core's bounds of the load under
 * way, {timeout_ms, parallel, max_reply_bytes, max_config_bytes}; load requests counted (only the latest
 * one's results are shown) and finished.
 */
const hub = { token: '', current: null, limits: null, loads: 0, finishedLoads: 0 };

/**
 * The Hub model the page's link should carry ("org/name" or "org/name@rev"), or '' when the model in
 * the form is not the one loaded from the Hub (a preset was picked, another config.json pasted).
 */
export function hubLink() {
  if (!hub.current || $('model-preset')?.value) return '';
  if (hub.current.pending || hub.current.kept) return hub.current.link;
  return $('hf-config')?.value === hub.current.configText ? hub.current.link : '';
}

function setState(state, source) {
  const box = $('hub-box');
  box.dataset.state = state;
  if (source) box.dataset.source = source;
  else delete box.dataset.source;
  if (state !== 'loading') box.dataset.runs = String(++hub.finishedLoads);
}

function showErrors(errors) {
  const box = $('hub-errors');
  box.hidden = errors.length === 0;
  box.replaceChildren(...errors.map((e) => el('span', e.message, { class: 'line', 'data-file': e.file || '' })));
}

/** A config.json text loaded into the estimate exactly as a pasted one: into #hf-config, read by config-import.js. */
function pasteConfig(text) {
  const area = $('hf-config');
  area.value = text;
  area.dispatchEvent(new Event('input', { bubbles: true }));
}

/**
 * Builds the Hub box in #hub-box and wires it; `linkValue`: the Hub model of the page's link (its
 * HUB_KEY entry), fetched again when given. `apply(text)` loads a config.json (default: as pasted);
 * `applyModel(model, text)` loads the memplan model section the day-one path made of config.json `text`
 * (without it, a config.json the families refuse is not loaded).
 */
export function wireHub(mp, linkValue, apply = pasteConfig, applyModel = null) {
  const box = $('hub-box');
  if (!box) return;
  const input = el('input', null, { type: 'text', id: 'hub-model', spellcheck: 'false', autocomplete: 'off',
    placeholder: 'Qwen/Qwen3-0.6B, org/name@revision or a huggingface.co link', 'aria-describedby': 'hub-hint' });
  const secret = el('input', null, { type: 'password', id: 'hub-token', autocomplete: 'off', spellcheck: 'false' });
  const button = el('button', 'Load from the Hub', { type: 'button', id: 'hub-load' });
  const modelLabel = el('label', 'Model on the Hub ');
  modelLabel.append(input);
  const tokenLabel = el('label', 'Access token (gated models) ');
  tokenLabel.append(secret);
  box.replaceChildren(el('summary', 'Load a model from the Hugging Face Hub'), modelLabel, tokenLabel,
    el('small', 'Fetches config.json, the Hub API entry and the first bytes of each safetensors file from huggingface.co. ' +
      'The token stays in this page\'s memory: sent to huggingface.co only, never put in the link.', { id: 'hub-hint', class: 'hint' }),
    button, el('p', '', { id: 'hub-status', role: 'status' }), el('p', '', { id: 'hub-errors', class: 'errors', role: 'alert', hidden: '' }),
    el('p', '', { id: 'hub-assumptions', class: 'assumptions', hidden: '' }),
    el('div', null, { id: 'hub-result', hidden: '' }));
  // The Hub's fields are not configuration fields: their events stay out of the form's update loop.
  for (const type of ['input', 'change']) box.addEventListener(type, (e) => e.stopPropagation());
  secret.addEventListener('input', () => { hub.token = secret.value; });
  const go = (fromLink) => import('./hub-load.js').then(({ loadFromHub }) =>
    loadFromHub({ hub, setState, showErrors }, mp, input.value, apply, applyModel, { fromLink })).catch((error) => {
    showErrors([{ file: '', message: 'The Hub model could not be loaded (' + (error && error.message) + ')' }]);
    setState('failed');
  });
  button.addEventListener('click', () => go(false));
  input.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); go(false); } });
  if (linkValue) {
    box.open = true;
    input.value = linkValue;
    try {
      hub.current = { link: mp.hubModel(linkValue).link, configText: null, pending: true, kept: false };
    } catch {
      hub.current = null;
    }
    go(true);
  }
}
