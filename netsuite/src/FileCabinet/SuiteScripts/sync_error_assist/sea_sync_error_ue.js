/**
 * @NApiVersion 2.1
 * @NScriptType UserEventScript
 * @NModuleScope SameAccount
 *
 * Posts every saved sync-error record (customrecord_sea_sync_error) to the sync-error triage
 * service's ingest webhook, signed per Standard Webhooks v1. It never throws into the save:
 * the record is already written when afterSubmit runs, and whatever this script fails to
 * deliver the service's 30-minute reconcile picks up by polling these records.
 *
 * The payload reaches the service with the digits it was saved with: where JSON.parse would
 * change a number of it (more digits than a double keeps), the body carries the payload's
 * own JSON text instead of a re-serialization of the parsed object. The service keeps a
 * payload as text (json.RawMessage), so those digits are what a fix is later judged on.
 */
define(['N/crypto', 'N/encode', 'N/https', 'N/log', 'N/runtime', './sea_exact_json'], (crypto, encode, https, log, runtime, exactJSON) => {
  const RECORD_TYPE = 'customrecord_sea_sync_error';

  const FIELD = Object.freeze({
    errorId: 'custrecord_sea_error_id',
    recordType: 'custrecord_sea_record_type',
    recordId: 'custrecord_sea_record_id',
    errorCode: 'custrecord_sea_error_code',
    message: 'custrecord_sea_message',
    payload: 'custrecord_sea_payload',
    occurredAt: 'custrecord_sea_occurred_at',
    externalSystem: 'custrecord_sea_external_system',
    direction: 'custrecord_sea_direction',
  });

  const PARAM = Object.freeze({
    url: 'custscript_sea_ingest_url',
    tenantId: 'custscript_sea_tenant_id',
    secretId: 'custscript_sea_secret_id',
  });

  const DIRECTIONS = ['inbound', 'outbound'];

  // The service's claim is keyed by tenant and errorId, so a record without its own error id
  // still needs one that every save (and the reconcile's poll) derives the same way.
  const FALLBACK_ERROR_ID_PREFIX = 'ns-sync-error-';

  function text(value) {
    if (value === null || value === undefined) return '';
    return String(value);
  }

  function readConfig() {
    const script = runtime.getCurrentScript();
    const config = {
      url: text(script.getParameter({ name: PARAM.url })).trim(),
      tenantId: text(script.getParameter({ name: PARAM.tenantId })).trim(),
      secretId: text(script.getParameter({ name: PARAM.secretId })).trim(),
    };
    const missing = Object.keys(config).filter((k) => config[k] === '').map((k) => PARAM[k]);
    return { config, missing };
  }

  function occurredAt(record, context) {
    const raw = text(record.getValue({ fieldId: FIELD.occurredAt })).trim();
    const parsed = raw === '' ? NaN : Date.parse(raw);
    if (!Number.isNaN(parsed)) return new Date(parsed).toISOString();
    if (raw !== '') context.occurredAtText = raw;
    // The ingest requires a time; when the record has none that parses, the moment the
    // record was created is the closest thing to when the error happened.
    const created = record.getValue({ fieldId: 'created' });
    if (Object.prototype.toString.call(created) === '[object Date]' && !Number.isNaN(created.getTime())) {
      return created.toISOString();
    }
    return new Date().toISOString();
  }

  // buildRecord returns the ingest body and, when JSON.parse changed numbers of the
  // payload, the payload's text that serialize must send in its place.
  function buildRecord(record, tenantId, eventType) {
    const context = {
      source: 'netsuite',
      accountId: runtime.accountId,
      hostRecord: { type: record.type || RECORD_TYPE, id: text(record.id) },
      event: eventType,
    };
    const body = {
      tenantId,
      errorId: text(record.getValue({ fieldId: FIELD.errorId })).trim() || FALLBACK_ERROR_ID_PREFIX + text(record.id),
      recordType: text(record.getValue({ fieldId: FIELD.recordType })).trim(),
      recordId: text(record.getValue({ fieldId: FIELD.recordId })).trim(),
      errorCode: text(record.getValue({ fieldId: FIELD.errorCode })).trim(),
      message: text(record.getValue({ fieldId: FIELD.message })),
      occurredAt: occurredAt(record, context),
    };
    const externalSystem = text(record.getValue({ fieldId: FIELD.externalSystem })).trim();
    if (externalSystem !== '') body.externalSystem = externalSystem;

    // The ingest rejects the whole delivery for a direction it does not know; keeping the
    // text in context delivers the error anyway.
    const direction = text(record.getValue({ fieldId: FIELD.direction })).trim();
    if (DIRECTIONS.indexOf(direction.toLowerCase()) >= 0) body.direction = direction.toLowerCase();
    else if (direction !== '') context.directionText = direction;

    // Likewise payload must be a JSON object; text that is not one still reaches the operator.
    const payloadText = text(record.getValue({ fieldId: FIELD.payload }));
    let exactPayload = null;
    if (payloadText.trim() !== '') {
      let payload = null;
      try {
        payload = JSON.parse(payloadText);
      } catch (e) {
        payload = null;
      }
      if (payload !== null && typeof payload === 'object' && !Array.isArray(payload)) {
        body.payload = payload;
        // Only text JSON.parse accepted as an object gets here, so it is safe to splice.
        if (exactJSON.inexactNumbers(payloadText).length > 0) exactPayload = payloadText.trim();
      } else {
        context.payloadText = payloadText;
      }
    }
    body.context = context;
    return { body, exactPayload };
  }

  // serialize is JSON.stringify(body), except that, given exactPayload, the payload's own
  // text stands where its re-serialization would; every other member is written (or left
  // out, when undefined) as JSON.stringify writes it, in the same order.
  function serialize(body, exactPayload) {
    if (exactPayload === null) return JSON.stringify(body);
    const members = Object.keys(body)
      .filter((name) => body[name] !== undefined)
      .map((name) => `${JSON.stringify(name)}:${name === 'payload' ? exactPayload : JSON.stringify(body[name])}`);
    return `{${members.join(',')}}`;
  }

  // Standard Webhooks says a redelivery of the same message keeps its webhook-id; a second
  // save of the same sync error is that redelivery, so the id derives from tenant and errorId.
  function messageId(tenantId, errorId) {
    const hash = crypto.createHash({ algorithm: crypto.HashAlg.SHA256 });
    hash.update({ input: tenantId + '\n' + errorId, inputEncoding: encode.Encoding.UTF_8 });
    return 'msg_' + hash.digest({ outputEncoding: encode.Encoding.HEX }).toLowerCase().slice(0, 32);
  }

  // The API secret holds the base64 key part of the tenant's whsec_ secret, so NetSuite decodes
  // it to the HMAC key and the key itself never passes through the script.
  function signature(secretId, id, timestamp, body) {
    const key = crypto.createSecretKey({ secret: secretId, encoding: encode.Encoding.BASE_64 });
    const hmac = crypto.createHmac({ algorithm: crypto.HashAlg.SHA256, key });
    hmac.update({ input: id + '.' + timestamp + '.' + body, inputEncoding: encode.Encoding.UTF_8 });
    return 'v1,' + hmac.digest({ outputEncoding: encode.Encoding.BASE_64 });
  }

  function parseJSON(value) {
    try {
      return JSON.parse(value);
    } catch (e) {
      return null;
    }
  }

  function logAnswer(response, errorId, id) {
    const status = Number(response.code);
    const answer = parseJSON(text(response.body)) || {};
    if (status === 202) {
      log.audit({
        title: answer.duplicate ? 'Sync error already known to the service' : 'Sync error delivered',
        details: { errorId, webhookId: id, claimId: answer.id, status: answer.status, duplicate: answer.duplicate === true },
      });
      return;
    }
    // 4xx will not pass on a retry (wrong secret, tenant or fields); 5xx and 429 (the API's
    // throttle) are transient. Either way the reconcile polls this record later, so nothing
    // is retried inside the user's save.
    const transient = status >= 500 || status === 429;
    log.error({
      title: transient ? 'Sync error not delivered; the reconcile will retry' : 'Sync error rejected by the service',
      details: { errorId, webhookId: id, httpStatus: status, code: answer.code, detail: answer.detail, errors: answer.errors, correlationId: answer.correlationId },
    });
  }

  function deliver(record, eventType) {
    const { config, missing } = readConfig();
    if (missing.length > 0) {
      log.error({ title: 'Sync error not delivered: script parameters missing', details: { missing, recordId: text(record.id) } });
      return;
    }
    const built = buildRecord(record, config.tenantId, eventType);
    const syncError = built.body;
    // The signature below covers this text, spliced payload included.
    const body = serialize(syncError, built.exactPayload);
    const id = messageId(config.tenantId, syncError.errorId);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const headers = {
      'Content-Type': 'application/json',
      'X-Tenant-Id': config.tenantId,
      'webhook-id': id,
      'webhook-timestamp': timestamp,
      'webhook-signature': signature(config.secretId, id, timestamp, body),
    };
    const response = https.post({ url: config.url, body, headers });
    logAnswer(response, syncError.errorId, id);
  }

  function describe(e) {
    if (e && typeof e === 'object') return { name: e.name, message: e.message };
    return { message: text(e) };
  }

  function afterSubmit(context) {
    const types = context.UserEventType;
    // Inline edits (xedit) carry only the changed fields, too little to build the body from;
    // the reconcile still sees the record.
    if (context.type !== types.CREATE && context.type !== types.EDIT) return;
    try {
      deliver(context.newRecord, context.type);
    } catch (e) {
      log.error({ title: 'Sync error not delivered; the reconcile will pick it up', details: describe(e) });
    }
  }

  return { afterSubmit };
});
