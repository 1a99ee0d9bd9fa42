'use strict';
// N/https as documented ("https.post(options)", "https.ClientResponse"): post is synchronous,
// options.url and options.body are required, an object body is sent form-encoded, and every
// HTTP answer, 4xx and 5xx included, comes back as a ClientResponse {code, body, headers}; only
// a failed connection or an exceeded time limit throws. The stand-in does not insist on an
// https URL because the local stack it talks to serves plain HTTP.
const { fetchSync } = require('./sync-fetch');
const { suiteScriptError, requireOptions } = require('./error');

// The documented limits are 5 s to connect and 45 s to send; one bound covers both here.
const DEFAULT_TIMEOUT_MS = 50000;

function createHttps(options = {}) {
  const timeoutMs = options.timeoutMs || DEFAULT_TIMEOUT_MS;
  const exchanges = [];

  function post(request) {
    requireOptions(request, ['url'], 'https.post');
    if (request.body === undefined || request.body === null) {
      throw suiteScriptError('SSS_MISSING_REQD_ARGUMENT', 'https.post: missing a required argument: options.body');
    }
    const body = typeof request.body === 'string' ? request.body : new URLSearchParams(request.body).toString();
    const headers = {};
    for (const [k, v] of Object.entries(request.headers || {})) headers[k] = String(v);
    const exchange = { url: String(request.url), headers, body };
    exchanges.push(exchange);
    const result = fetchSync({ url: exchange.url, method: 'POST', headers, body, timeoutMs });
    if (!result.ok) {
      exchange.error = result;
      throw suiteScriptError('SSS_REQUEST_TIME_EXCEEDED',
        result.timeout ? 'The host did not answer in time.' : `The request could not be sent: ${result.cause || result.message}`);
    }
    exchange.response = Object.freeze({ code: result.status, body: result.body, headers: Object.freeze(result.headers) });
    return exchange.response;
  }

  return Object.freeze({ post, exchanges });
}

module.exports = { createHttps };
