// <memplan-estimate model="org/name">: the config.json of a model on the Hugging Face Hub, for the
// element (memplan-estimate.js), which imports this module only when its model attribute names one.
// The id is read by the core (mp.hubModel of the full module memplan.js: its rules, addresses and
// limits; the estimate-only module has no Hub reader), the file is fetched as the page's Hub box
// fetches it (hub-fetch.js), and the element gives the text to the core's estimate as a pasted
// config.json is given (options.hfConfig). Each model is fetched once for every element of the page.
import { load } from './memplan.js';
import { hubGet } from './hub-fetch.js';

const fetches = new Map();

/**
 * The config.json text of the Hub model `typed` ("org/name", "org/name@revision" or its link):
 * {id, where: "ID at REVISION", text}. Throws an Error whose message names the model (or, for what is not
 * a model id, the core's message about hub.model, which quotes it).
 */
export function hubConfig(typed) {
  if (!fetches.has(typed)) {
    const promise = fetchConfig(typed);
    fetches.set(typed, promise);
    promise.catch(() => fetches.delete(typed));  // a later render may retry
  }
  return fetches.get(typed);
}

async function fetchConfig(typed) {
  const mp = await load();
  let model;
  try {
    model = mp.hubModel(typed);
  } catch (error) {
    throw new Error((error.errors || [{ field: 'hub.model', message: error.message }]).map((e) => `${e.field}: ${e.message}`).join('; '));
  }
  const where = `${model.id} at ${model.revision}`;
  if (typeof navigator !== 'undefined' && navigator.onLine === false)
    throw new Error(`${where}: the Hub is unreachable (this browser is offline): config.json was not fetched`);
  try {
    const { body } = await hubGet(model.files_url + 'config.json', 'config.json',
      { limits: model.limits, limit: model.limits.max_config_bytes, revision: model.revision });
    return { id: model.id, where, text: body };
  } catch (error) {
    throw new Error(`${where}: ${error.message}`);
  }
}
