'use strict';
// SuiteScript's https.post is synchronous and Node's fetch is not: the request runs in a worker
// thread while this thread blocks on Atomics.wait, then the answer is read off a message port.
const { Worker, MessageChannel, receiveMessageOnPort } = require('node:worker_threads');

const workerSource = `
const { workerData } = require('node:worker_threads');
const { signal, port, request } = workerData;
(async () => {
  let result;
  try {
    const r = await fetch(request.url, {
      method: request.method, headers: request.headers, body: request.body,
      signal: AbortSignal.timeout(request.timeoutMs), redirect: 'manual',
    });
    const headers = {};
    r.headers.forEach((v, k) => { headers[k] = v; });
    result = { ok: true, status: r.status, headers, body: await r.text() };
  } catch (e) {
    const cause = e && e.cause ? e.cause.code || e.cause.message : undefined;
    result = { ok: false, timeout: e && (e.name === 'TimeoutError' || e.name === 'AbortError'), message: String(e && e.message), cause };
  }
  port.postMessage(result);
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
})();
`;

/**
 * fetchSync sends one HTTP request and blocks until it has the answer or failed.
 * @returns {{ok: true, status: number, headers: object, body: string} | {ok: false, timeout: boolean, message: string, cause?: string}}
 */
function fetchSync(request) {
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(workerSource, { eval: true, workerData: { signal, port: port2, request }, transferList: [port2] });
  try {
    // The worker's own timeout answers first; this bound only guards against a dead worker.
    const waited = Atomics.wait(signal, 0, 0, request.timeoutMs + 5000);
    const message = receiveMessageOnPort(port1);
    if (waited === 'timed-out' || !message) return { ok: false, timeout: true, message: 'no answer from the request worker' };
    return message.message;
  } finally {
    port1.close();
    worker.terminate();
  }
}

module.exports = { fetchSync };
