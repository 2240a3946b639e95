// memplan page — runs analyze() (every ZeRO stage, the inverse searches, the sweeps: the heavy part) in
// a Web Worker with a time limit, so the page never blocks on it. Only the latest request counts: a
// newer one replaces a running one (its worker is stopped and a fresh one started), and a request that
// runs past the limit is stopped and reported as such.
//   worker side:  serveAnalysis(self, load)          page side:  const run = analysisClient(spawn, limitMs);
//                                                                 run(config).then(({analysis} | {errors} | {timedOut}))

/** Answers {id, config} messages with {id, analysis} (with preset_fits) or {id, errors}; {id, plan}
 * messages (a planner request) with {id, analysis: mp.plan(plan)}. */
export function serveAnalysis(scope, load) {
  const ready = load();
  scope.onmessage = async (event) => {
    const { id, config, plan } = event.data;
    try {
      const mp = await ready;
      if (plan) {
        scope.postMessage({ id, analysis: mp.plan(plan) });
        return;
      }
      const analysis = mp.analyze(config);
      const fits = typeof mp.presetFits === 'function' ? mp.presetFits(config) : null;  // the core's list
      scope.postMessage({ id, analysis: fits ? { ...analysis, preset_fits: fits } : analysis });
    } catch (error) {
      scope.postMessage({ id, errors: error.errors || [{ field: 'analysis', message: String(error && error.message) }] });
    }
  };
}

/**
 * The page side: spawn() makes a worker running serveAnalysis; limitMs bounds one analysis. Returns
 * run(config) → Promise of {analysis}, {errors}, {timedOut: true} or {superseded: true} (a newer run
 * replaced it). A request made while one is running waits for it (its answer is then of no use and
 * resolves as superseded) instead of stopping the worker: starting a fresh worker (a new WASM instance)
 * costs more than most analyses. Only the newest waiting request is kept; the time limit alone stops a worker.
 * `kind` names the message's payload: 'config' (analyze) or 'plan' (the layout planner).
 */
export function analysisClient(spawn, limitMs, kind = 'config') {
  let worker = null;
  let current = null;  // the running request: {id, resolve, timer}
  let waiting = null;  // the newest request made while one runs: {config, resolve}
  let nextId = 0;
  const stop = () => {
    if (worker) worker.terminate();
    worker = null;
  };
  const start = (config, resolve) => {
    if (!worker) {
      try {
        worker = spawn();
      } catch (error) {  // workers refused (a host page's CSP without worker-src): say so, never throw
        resolve({ errors: [{ field: 'analysis', message: 'cannot start a worker (' + (error && error.message) + ')' }] });
        return;
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
    const id = ++nextId;
    current = { id, resolve, timer: setTimeout(() => { stop(); finish({ timedOut: true }); }, limitMs) };
    worker.postMessage({ id, [kind]: config });
  };
  function finish(outcome) {
    const done = current;
    current = null;
    clearTimeout(done.timer);
    const next = waiting;
    waiting = null;
    done.resolve(next ? { superseded: true } : outcome);
    if (next) start(next.config, next.resolve);
  }
  return function run(config) {
    return new Promise((resolve) => {
      if (!current) return start(config, resolve);
      if (waiting) waiting.resolve({ superseded: true });
      waiting = { config, resolve };
    });
  };
}
