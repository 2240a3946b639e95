// The worker protocol of web/analysis-client.js with a worker stand-in (same message interface):
// answers, errors, the time limit and a newer request replacing a running one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analysisClient, serveAnalysis } from '../../web/analysis-client.js';

/** A worker whose script is serveAnalysis over `core`, run in this process (messages asynchronous). */
function fakeWorker(core, log) {
  const scope = { postMessage: (data) => setTimeout(() => worker.onmessage && worker.onmessage({ data })) };
  const worker = {
    postMessage: (data) => { log.push('post'); setTimeout(() => scope.onmessage({ data })); },
    terminate: () => { log.push('terminate'); scope.postMessage = () => {}; },
  };
  serveAnalysis(scope, async () => core);
  return worker;
}

test('an answer, and an error list as the core raised it', async () => {
  const log = [];
  const run = analysisClient(() => fakeWorker({ analyze: (c) => {
    if (c.bad) throw Object.assign(new Error('x'), { errors: [{ field: 'parallel.tp', message: 'must divide' }] });
    return { n: c.n * 2 };
  } }, log), 1000);
  assert.deepEqual(await run({ n: 21 }), { analysis: { n: 42 } });
  assert.deepEqual(await run({ bad: true }), { errors: [{ field: 'parallel.tp', message: 'must divide' }] });
  assert.deepEqual(log, ['post', 'post']);  // one worker for both
});

test('past the time limit the worker is stopped and a fresh one serves the next request', async () => {
  const log = [];
  let spawned = 0;
  const run = analysisClient(() => {
    spawned++;
    return spawned === 1 ? { postMessage: () => log.push('post'), terminate: () => log.push('terminate') }  // never answers
      : fakeWorker({ analyze: () => 'ok' }, log);
  }, 30);
  const started = Date.now();
  assert.deepEqual(await run({}), { timedOut: true });
  assert.ok(Date.now() - started >= 25);
  assert.deepEqual(await run({}), { analysis: 'ok' });
  assert.equal(spawned, 2);
  assert.deepEqual(log, ['post', 'terminate', 'post']);
});

test('a request made while one runs waits for it (the running answer resolves as superseded); only the newest waits', async () => {
  const log = [];
  let spawned = 0;
  const run = analysisClient(() => { spawned++; return fakeWorker({ analyze: (c) => c.n }, log); }, 1000);
  const first = run({ n: 1 });
  const second = run({ n: 2 });
  const third = run({ n: 3 });
  assert.deepEqual(await second, { superseded: true });  // replaced while waiting, never posted
  assert.deepEqual(await first, { superseded: true });   // answered, but a newer request was waiting
  assert.deepEqual(await third, { analysis: 3 });
  assert.equal(spawned, 1);                              // no worker was stopped or started again
  assert.deepEqual(log, ['post', 'post']);
});

test('a request waiting behind one past the time limit runs in a fresh worker', async () => {
  const log = [];
  let spawned = 0;
  const run = analysisClient(() => {
    spawned++;
    return spawned === 1 ? { postMessage: () => log.push('post'), terminate: () => log.push('terminate') }  // never answers
      : fakeWorker({ analyze: (c) => c.n }, log);
  }, 30);
  const first = run({ n: 1 });
  const second = run({ n: 2 });
  assert.deepEqual(await first, { superseded: true });
  assert.deepEqual(await second, { analysis: 2 });
  assert.deepEqual(log, ['post', 'terminate', 'post']);
});

test('a worker that cannot be started is reported as an error, not thrown', async () => {
  const run = analysisClient(() => { throw new Error('refused by the Content-Security-Policy'); }, 1000);
  assert.deepEqual(await run({}), { errors: [{ field: 'analysis', message: 'cannot start a worker (refused by the Content-Security-Policy)' }] });
});

test('a plan client posts {id, plan} and the worker answers with mp.plan() of it', async () => {
  const log = [];
  const run = analysisClient(() => fakeWorker({
    analyze: () => assert.fail('a plan request must not run analyze()'),
    plan: (request) => ({ top: [{ gpus: request.gpus }] }),
  }, log), 1000, 'plan');
  assert.deepEqual(await run({ gpus: 8 }), { analysis: { top: [{ gpus: 8 }] } });
  assert.deepEqual(log, ['post']);
});

/** A core whose planSteps yields one answer per count of request.counts, the last done; `freed` counts generators closed. */
function streamingCore(state) {
  return {
    plan: () => { throw new Error('plan() is not called when planSteps exists'); },
    *planSteps(request) {
      try {
        for (let i = 1; i <= request.counts; i++) yield { n: request.n, seen: i, done: i === request.counts };
      } finally {
        state.freed++;
      }
    },
  };
}

test('a plan streams: each partial answer of the running request, then the final one', async () => {
  const state = { freed: 0 };
  const run = analysisClient(() => fakeWorker(streamingCore(state), []), 1000, 'plan');
  const partials = [];
  const outcome = await run({ n: 1, counts: 3 }, (p) => partials.push(p.seen));
  assert.deepEqual(partials, [1, 2]);
  assert.deepEqual(outcome, { analysis: { n: 1, seen: 3, done: true } });
  assert.equal(state.freed, 1);
});

test('a newer plan stops the running one at its next count; cancel() stops it without a successor', async () => {
  const state = { freed: 0 };
  const run = analysisClient(() => fakeWorker(streamingCore(state), []), 1000, 'plan');
  const seen = [];
  const first = run({ n: 1, counts: 1000 }, (p) => {
    seen.push(p.seen);
    if (p.seen === 2) second = run({ n: 2, counts: 2 }, () => {});  // typed while the first streams
  });
  let second = null;
  assert.deepEqual(await first, { superseded: true });
  assert.ok(seen.length < 10, `stopped early, after ${seen.length} partial answers`);
  assert.deepEqual(await second, { analysis: { n: 2, seen: 2, done: true } });
  const third = run({ n: 3, counts: 1000 }, () => run.cancel());
  assert.deepEqual(await third, { superseded: true });
  assert.equal(state.freed, 3);  // every search was closed
});

test('warm() starts the worker ahead of the first request, runs its request once and answers nothing', async () => {
  const log = [];
  const warmed = [];
  let spawned = 0;
  const run = analysisClient(() => { spawned++; return fakeWorker({
    analyze: () => assert.fail('a plan client never runs analyze()'),
    plan: (request) => { warmed.push(request.gpus); return { top: [{ gpus: request.gpus }] }; },
  }, log); }, 1000, 'plan');
  run.warm({ gpus: 1 });
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(warmed, [1]);                    // the warm-up ran once in the worker
  assert.equal(spawned, 1);
  run.warm({ gpus: 2 });                            // a worker runs already: nothing more
  assert.deepEqual(await run({ gpus: 8 }), { analysis: { top: [{ gpus: 8 }] } });
  assert.equal(spawned, 1);                         // the real request used the warmed worker
  assert.deepEqual(warmed, [1, 8]);
  assert.deepEqual(log, ['post', 'post']);
  // A host that refuses workers: warm() is silent, the request says so.
  const refused = analysisClient(() => { throw new Error('no workers'); }, 1000, 'plan');
  refused.warm({ gpus: 1 });
  assert.deepEqual(await refused({ gpus: 8 }), { errors: [{ field: 'analysis', message: 'cannot start a worker (no workers)' }] });
});
