// memplan page — a pasted or dropped Hugging Face config.json: checked for size and depth (state.js
// parseHfConfig), read by the core (mp.resolveModel), then shown as the model fields. Errors name the
// config.json key. #hf-box carries data-pending while a pasted text waits to be read.
import { $, el } from './dom.js';
import { parseHfConfig } from './state.js';

/** Pause after the last keystroke in the text area before the text is read, in ms. */
const PASTE_DEBOUNCE_MS = 150;

function showHfErrors(errors) {
  const box = $('hf-errors');
  box.hidden = errors.length === 0;
  box.replaceChildren(...errors.map((e) => el('span', `${e.field}: ${e.message}`, { class: 'line' })));
  if (errors.length) $('hf-config').setAttribute('aria-invalid', 'true');
  else $('hf-config').removeAttribute('aria-invalid');
  // The answer shown is the previous model's: hidden while the pasted config.json is refused, never shown beside its error.
  $('output').classList.toggle('model-rejected', errors.length > 0);
  $('answer-bar').classList.toggle('model-rejected', errors.length > 0);  // the sticky verdict bar too
}

/** The core's errors about a Hugging Face config, named by their config.json key. */
function configJsonErrors(error) {
  return (error.errors || [{ field: 'config.json', message: error.message }]).map((e) => {
    const key = String(e.field).replace(/^(hf_config|model|config)\.?/, '');
    return { field: key ? 'config.json ' + key : 'config.json', message: e.message };
  });
}

/**
 * Reads config.json text: resolve(text) → the core's {model, params} (throws MemplanError), apply(model)
 * writes the model into the form and recomputes. Never throws: every failure is shown under the box.
 */
function readConfigText(text, limits, resolve, apply) {
  try {
    const parsed = parseHfConfig(text, limits);
    if (!parsed.text) return showHfErrors(parsed.error ? [parsed.error] : []);
    let resolved;
    try {
      resolved = resolve(parsed.text);
    } catch (error) {
      return showHfErrors(configJsonErrors(error));
    }
    if (resolved.params === null)
      return showHfErrors([{ field: 'config.json', message: 'needs num_hidden_layers, hidden_size and num_attention_heads' }]);
    showHfErrors([]);
    apply(resolved.model);
  } catch (error) {  // anything unforeseen (a RangeError of a runaway input) is reported, not thrown
    showHfErrors([{ field: 'config.json', message: 'cannot be read (' + (error && error.message) + ')' }]);
  } finally {
    delete $('hf-box').dataset.pending;
  }
}

/** Wires the text area, the file picker and drag and drop; limits: the schema's (size and depth of JSON input). */
export function wireConfigImport(limits, resolve, apply) {
  const area = $('hf-config');
  const box = $('hf-box');
  const read = (text) => readConfigText(text, limits, resolve, apply);
  const readFile = (file) => {
    if (!file) return;
    box.dataset.pending = '1';
    file.text().then((text) => {
      area.value = text;
      read(text);
    }, (error) => {
      delete box.dataset.pending;
      showHfErrors([{ field: 'config.json', message: 'cannot be read (' + error.message + ')' }]);
    });
  };
  let timer = 0;
  area.addEventListener('input', () => {
    box.dataset.pending = '1';
    clearTimeout(timer);
    timer = setTimeout(() => read(area.value), PASTE_DEBOUNCE_MS);
  });
  $('hf-file').addEventListener('change', (e) => readFile(e.target.files[0]));
  box.addEventListener('dragover', (e) => { e.preventDefault(); box.classList.add('drop'); });
  box.addEventListener('dragleave', () => box.classList.remove('drop'));
  box.addEventListener('drop', (e) => {
    e.preventDefault();
    box.classList.remove('drop');
    box.open = true;
    readFile(e.dataTransfer.files[0]);
  });
}
