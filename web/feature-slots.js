// memplan page — shared by the feature panels (finetune-view.js, serving-view.js, compare-view.js): their
// `<label data-field>` slots sit outside the form element, so form.js builds those fields' controls under
// "Other settings"; adoptSlots moves each control into its slot once, tied back to the form with the
// form="form" attribute (it stays in form.elements: read, written and linked as every other field), and
// forwards the panel's input and change events to the form, where app.js listens. No arithmetic here.
import { $ } from './dom.js';

const adopted = new WeakSet();

/** The form element's id (the form attribute of adopted controls). */
const FORM_ID = 'form';

/** Moves the controls of `panel`'s slots out of "Other settings" into the panel (once per panel). */
export function adoptSlots(panel) {
  if (!panel || adopted.has(panel)) return;
  adopted.add(panel);
  const more = $('more-fields');
  for (const slot of panel.querySelectorAll('label[data-field]')) {
    const key = slot.dataset.field;
    const built = more ? [...more.querySelectorAll('label[data-field]')].find((l) => l.dataset.field === key) : null;
    if (!built) { slot.remove(); continue; }  // not in this core's schema, or placed elsewhere in the form
    for (const name of built.classList) slot.classList.add(name);
    slot.replaceChildren(...built.childNodes);
    built.remove();
    for (const control of slot.querySelectorAll('input, select, textarea')) control.setAttribute('form', FORM_ID);
    const readout = document.getElementById('parsed-' + key);  // what the core read there (form.js)
    if (readout) slot.after(readout);
  }
  if (more) more.hidden = !more.querySelector('label');
  const forward = (event) => {
    if (!event.target.name) return;
    $(FORM_ID).dispatchEvent(new Event(event.type, { bubbles: true }));
  };
  panel.addEventListener('input', forward);
  panel.addEventListener('change', forward);
}

/** Sets form fields (name → text or boolean) as a person would, then asks the page to recompute. */
export function setFields(values) {
  const form = $(FORM_ID);
  for (const [name, value] of Object.entries(values)) {
    const input = form.elements.namedItem(name);
    if (!input) continue;
    if (input.type === 'checkbox') input.checked = value === true || value === 'true';
    else input.value = String(value);
  }
  form.dispatchEvent(new Event('change', { bubbles: true }));
}

/** The schema's label of a field (its path when the schema has none). */
export function fieldLabel(mp, path) {
  const field = mp.schema().fields.find((f) => f.path === path);
  return field ? field.label : path;
}
