// memplan page — runs analyze() (every ZeRO stage, the inverse searches, the sweeps: the heavy part) in
// a Web Worker with a time limit, so the page never blocks on it. Only the latest request counts: a
// newer one replaces a running one (its worker is stopped and a fresh one started), and a request that
// runs past the limit is stopped and reported as such.
//   worker side:  serveAnalysis(self, load)          page side:  const run = analysisClient(spawn, limitMs);
//                                                                 run(config).then(({analysis} | {errors} | {timedOut}))

/** Answers {id, config} messages with {id, analysis} (with preset_fits) or {id, errors}; {id, plan}
 * messages (a planner request) with {id, partial} after each GPU count the core searched
 * (mp.planSteps) and {id, analysis} with the last, plan()'s answer; {cancel: id} stops that plan at
 * its next count, answered {id, superseded: true}. */
export function serveAnalysis(scope, load) {
  const ready = load();
  const cancelled = new Set();
  scope.onmessage = async (event) => {
    const { id, config, plan, cancel, warm } = event.data;
    if (cancel !== undefined) {
      cancelled.add(cancel);
      return;
    }
    if (warm) {  // {warm: request}: load the module and run one small request, answering nothing
      try {
        const mp = await ready;
        if (warm.plan) mp.plan(warm.plan);
      } catch (error) { /* a warm-up that fails changes nothing: the real request reports its own error */ }
      return;
    }
    try {
      const mp = await ready;
      if (plan) {
        if (typeof mp.planSteps !== 'function') {
          scope.postMessage({ id, analysis: mp.plan(plan) });
          return;
        }
        for (const answer of mp.planSteps(plan)) {
          if (answer.done) {
            cancelled.delete(id);
            scope.postMessage({ id, analysis: answer });
            return;
          }
          scope.postMessage({ id, partial: answer });
          await new Promise((resolve) => setTimeout(resolve, 0));  // lets a {cancel} message in
          if (cancelled.has(id)) {
            cancelled.delete(id);
            scope.postMessage({ id, superseded: true });
            return;  // leaving the loop frees the core's search
          }
        }
        return;
      }
      const analysis = mp.analyze(config);
      const fits = typeof mp.presetFits === 'function' ? mp.presetFits(config) : null;  // the core's list
      scope.postMessage({ id, analysis: fits ? { ...analysis, preset_fits: fits } : analysis });
    } catch (error) {
      cancelled.delete(id);
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
 * `kind` names the message's payload: 'config' (analyze) or 'plan' (the layout planner). A plan
 * streams: run(request, onPartial) calls onPartial(answer) with each partial answer of the running
 * request, and a newer request (or run.cancel()) asks the worker to stop it at its next GPU count
 * rather than waiting for the whole search.
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
  /** The worker, started if there is none; null (and `refused` called) when the host refuses workers. */
  const ensureWorker = (refused) => {
    if (!worker) {
      try {
        worker = spawn();
      } catch (error) {  // workers refused (a host page's CSP without worker-src): say so, never throw
        refused(error);
        return null;
      }
      worker.onmessage = (event) => {
        if (!current || event.data.id !== current.id) return;
        if (event.data.partial) {
          if (!current.cancelled && current.onPartial) current.onPartial(event.data.partial);
          return;
        }
        finish(event.data.superseded ? { superseded: true } : event.data.errors ? { errors: event.data.errors } : { analysis: event.data.analysis });
      };
      worker.onerror = (event) => {
        event.preventDefault();
        stop();
        if (current) finish({ errors: [{ field: 'analysis', message: 'the worker failed (' + (event.message || 'unknown error') + ')' }] });
      };
    }
    return worker;
  };
  const start = (config, resolve, onPartial) => {
    const refused = (error) => resolve({ errors: [{ field: 'analysis', message: 'cannot start a worker (' + (error && error.message) + ')' }] });
    if (!ensureWorker(refused)) return;
    const id = ++nextId;
    current = { id, resolve, onPartial, cancelled: false, timer: setTimeout(() => { stop(); finish({ timedOut: true }); }, limitMs) };
    worker.postMessage({ id, [kind]: config });
  };
  function finish(outcome) {
    const done = current;
    current = null;
    clearTimeout(done.timer);
    const next = waiting;
    waiting = null;
    done.resolve(next || done.cancelled ? { superseded: true } : outcome);
    if (next) start(next.config, next.resolve, next.onPartial);
  }
  /** Asks the worker to stop the running plan at its next GPU count (a plan client only). */
  const cancelRunning = () => {
    if (kind !== 'plan' || !current || current.cancelled || !worker) return;
    current.cancelled = true;
    worker.postMessage({ cancel: current.id });
  };
  function run(config, onPartial) {
    return new Promise((resolve) => {
      if (!current) return start(config, resolve, onPartial);
      if (waiting) waiting.resolve({ superseded: true });
      waiting = { config, resolve, onPartial };
      cancelRunning();
    });
  }
  /** Starts the worker ahead of the first request and has it run `request` once, answering nothing: the
   * module is loaded and the core's first-call work done while the user reads the first answer, so the
   * first real request does not wait for them. Nothing when a worker already runs or is refused. */
  run.warm = (request) => {
    if (worker || current) return;
    if (ensureWorker(() => {})) worker.postMessage({ warm: { [kind]: request } });
  };
  /** Stops the running request (it resolves as superseded) and drops a waiting one. */
  run.cancel = () => {
    if (waiting) waiting.resolve({ superseded: true });
    waiting = null;
    cancelRunning();
  };
  return run;
}
