// memplan page — runs analyze() (every ZeRO stage, the inverse searches, the sweeps: the heavy part) in
// a Web Worker with a time limit, so the page never blocks on it. Only the latest request counts: a
// newer one replaces a running one (its worker is stopped and a fresh one started), and a request that
// runs past the limit is stopped and reported as such.
//   worker side:  serveAnalysis(self, load)          page side:  const run = analysisClient(spawn, limitMs);
//                                                                 run(config).then(({analysis} | {errors} | {timedOut}))

/**
 * Which stored models fit this setup: the core's estimate of every preset (mp.presets()) with the rest
 * of the configuration unchanged. [{id, name, params, total, fits}] in the catalogue's order; a preset
 * the setup cannot hold (a tensor-parallel degree that does not divide its heads, …) is left out.
 * `fits` is the core's verdict (null without a GPU capacity).
 */
export function presetFits(mp, config) {
  const out = [];
  for (const preset of mp.presets()) {
    try {
      const r = mp.estimate({ ...config, model: { preset: preset.id } });
      out.push({ id: preset.id, name: preset.name, params: r.params, total: r.per_gpu.total, fits: r.gpu ? r.gpu.fits : null });
    } catch { /* not a valid setup for this model */ }
  }
  return out;
}

/** Answers {id, config} messages with {id, analysis} (with preset_fits) or {id, errors}. */
export function serveAnalysis(scope, load) {
  const ready = load();
  scope.onmessage = async (event) => {
    const { id, config } = event.data;
    try {
      const mp = await ready;
      const analysis = mp.analyze(config);
      const fits = typeof mp.presets === 'function' ? presetFits(mp, config) : null;
      scope.postMessage({ id, analysis: fits ? { ...analysis, preset_fits: fits } : analysis });
    } catch (error) {
      scope.postMessage({ id, errors: error.errors || [{ field: 'analysis', message: String(error && error.message) }] });
    }
  };
}

/**
 * The page side: spawn() makes a worker running serveAnalysis; limitMs bounds one analysis. Returns
 * run(config) → Promise of {analysis}, {errors}, {timedOut: true} or {superseded: true} (a newer run
 * replaced it).
 */
export function analysisClient(spawn, limitMs) {
  let worker = null;
  let current = null;  // {id, resolve, timer}
  let nextId = 0;
  const stop = () => {
    if (worker) worker.terminate();
    worker = null;
  };
  const finish = (outcome) => {
    const done = current;
    current = null;
    clearTimeout(done.timer);
    done.resolve(outcome);
  };
  return function run(config) {
    if (current) {  // a newer state: the running analysis is of no use any more
      stop();
      finish({ superseded: true });
    }
    if (!worker) {
      try {
        worker = spawn();
      } catch (error) {  // workers refused (a host page's CSP without worker-src): say so, never throw
        return Promise.resolve({ errors: [{ field: 'analysis', message: 'cannot start a worker (' + (error && error.message) + ')' }] });
      }
      worker.onmessage = (event) => {
        if (current && event.data.id === current.id) finish(event.data.errors ? { errors: event.data.errors } : { analysis: event.data.analysis });
      };
      worker.onerror = (event) => {
        event.preventDefault();
        stop();
        if (current) finish({ errors: [{ field: 'analysis', message: 'the worker failed (' + (event.message || 'unknown error') + ')' }] });
      };
    }
    return new Promise((resolve) => {
      const id = ++nextId;
      current = { id, resolve, timer: setTimeout(() => { stop(); finish({ timedOut: true }); }, limitMs) };
      worker.postMessage({ id, config });
    });
  };
}
