// memplan page — runs analyze() (every ZeRO stage, the inverse searches, the sweeps: the heavy part) in
// a Web Worker with a time limit, so the page never blocks on it. Only the latest request counts: a
// newer one replaces a running one (its worker is stopped and a fresh one started), and a request that
// runs past the limit is stopped and reported as such.
//   worker side:  serveAnalysis(self, load)          page side:  const run = analysisClient(spawn, limitMs);
//                                                                 run(config).then(({analysis} | {errors} | {timedOut}))

/** Answers {id, config} messages with {id, analysis} or {id, errors}. */
export function serveAnalysis(scope, load) {
  const ready = load();
  scope.onmessage = async (event) => {
    const { id, config } = event.data;
    try {
      const mp = await ready;
      scope.postMessage({ id, analysis: mp.analyze(config) });
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
