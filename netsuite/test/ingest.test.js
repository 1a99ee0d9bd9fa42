'use strict';
// Runs the user-event script under Node against the real ingest of a local stack: the N/*
// modules are stand-ins written to the SuiteScript API reference (see standins/), a save is
// record.save() followed by afterSubmit with the context NetSuite passes, and what the
// service made of each post is read back through its operator API.
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const amd = require('./amd');
const stack = require('./stack');
const { createCrypto } = require('./standins/crypto');
const encode = require('./standins/encode');
const { createHttps } = require('./standins/https');
const { createLog } = require('./standins/log');
const { createRecordModule } = require('./standins/record');
const { createRuntime } = require('./standins/runtime');
const { UserEventType, afterSubmitContext } = require('./standins/userevent');

const project = path.resolve(__dirname, '..', 'src');
const SCRIPT = path.join(project, 'FileCabinet', 'SuiteScripts', 'sync_error_assist', 'sea_sync_error_ue.js');
const RECORD_TYPE = 'customrecord_sea_sync_error';
const recordXML = fs.readFileSync(path.join(project, 'Objects', `${RECORD_TYPE}.xml`), 'utf8');
const recordFields = [...recordXML.matchAll(/<customrecordcustomfield scriptid="([^"]+)"/g)].map((m) => m[1]);

// The tenant's whsec_ secret; NetSuite's API secret holds only its base64 key part.
const KEY_BASE64 = Buffer.from('syncassist-netsuite-test-secret!').toString('base64');
const WEBHOOK_SECRET = `whsec_${KEY_BASE64}`;
const SECRET_ID = 'custsecret_sea_ingest';

let service;
before(async () => {
  service = await stack.start({ webhookSecret: WEBHOOK_SECRET });
});
after(async () => {
  if (service) await service.stop();
});

/** account is one NetSuite account as the script sees it: deployment parameters, API secrets. */
function account({ parameters, secrets, https: httpsModule } = {}) {
  const log = createLog();
  const https = httpsModule || createHttps({ timeoutMs: 10000 });
  const record = createRecordModule({ [RECORD_TYPE]: recordFields });
  const runtime = createRuntime({
    parameters: parameters || {
      custscript_sea_ingest_url: `${service.base}/api/sync-error-assist/ingest`,
      custscript_sea_tenant_id: 'demo',
      custscript_sea_secret_id: SECRET_ID,
    },
  });
  const modules = {
    'N/crypto': createCrypto({ secrets: secrets || { [SECRET_ID]: KEY_BASE64 } }),
    'N/encode': encode,
    'N/https': https,
    'N/log': log,
    'N/record': record,
    'N/runtime': runtime,
  };
  const script = amd.load(SCRIPT, modules);
  assert.equal(typeof script.afterSubmit, 'function');

  // What NetSuite does on a save: write the record, then run afterSubmit with the saved record.
  function save(rec, type) {
    const before = type === UserEventType.CREATE ? null : record.load({ type: RECORD_TYPE, id: rec.id });
    rec.save();
    const saved = record.load({ type: RECORD_TYPE, id: rec.id });
    script.afterSubmit(afterSubmitContext(type, saved, before));
  }

  function createSyncError(values) {
    const rec = record.create({ type: RECORD_TYPE });
    for (const [fieldId, value] of Object.entries(values)) rec.setValue({ fieldId, value });
    save(rec, UserEventType.CREATE);
    return rec;
  }

  function edit(rec, values, type = UserEventType.EDIT) {
    const loaded = record.load({ type: RECORD_TYPE, id: rec.id });
    for (const [fieldId, value] of Object.entries(values || {})) loaded.setValue({ fieldId, value });
    save(loaded, type);
    return loaded;
  }

  // A delete passes the record as it was; there is nothing left to save.
  function remove(rec) {
    const gone = record.load({ type: RECORD_TYPE, id: rec.id });
    script.afterSubmit(afterSubmitContext(UserEventType.DELETE, gone, gone));
  }

  const answers = () => https.exchanges.map((x) => x.response && { code: x.response.code, body: JSON.parse(x.response.body) });
  return { log, https, record, createSyncError, edit, remove, answers };
}

function sampleFields(errorId) {
  return {
    custrecord_sea_error_id: errorId,
    custrecord_sea_record_type: 'salesOrder',
    custrecord_sea_record_id: 'SO-10042',
    custrecord_sea_error_code: 'INVALID_FIELD_VALUE',
    // Non-ASCII on purpose: the signature covers the UTF-8 bytes the service receives.
    custrecord_sea_message: "Invalid value for field shipcountry: 'Deutschland' is not an ISO 3166 code (Straße 1, Köln)",
    custrecord_sea_payload: JSON.stringify({ shipcountry: 'Deutschland', shipzip: '10115', total: 129.5 }),
    custrecord_sea_occurred_at: '2026-11-22T09:30:00Z',
    custrecord_sea_external_system: 'webshop',
    custrecord_sea_direction: 'inbound',
  };
}

// proposal reads a row through the operator API; text is the answer as sent, for digits
// that r.json() (JSON.parse) would change.
async function proposal(id) {
  const r = await fetch(`${service.base}/api/sync-error-assist/proposals/${id}`, {
    headers: { Authorization: `Bearer ${service.token('operator')}` },
  });
  const text = await r.text();
  return { status: r.status, body: JSON.parse(text), text };
}

const levels = (log) => log.entries.map((e) => e.level);

describe('the user-event script against the local stack', () => {
  test('a new sync error is claimed: 202, and the operator queue holds it as sent', async () => {
    const ns = account();
    ns.createSyncError(sampleFields('NS-ERR-1001'));

    assert.equal(ns.https.exchanges.length, 1);
    const [{ code, body }] = ns.answers();
    assert.equal(code, 202, JSON.stringify(body));
    assert.equal(body.duplicate, false);
    assert.match(body.id, /^se_/);
    assert.deepEqual(levels(ns.log), ['AUDIT']);
    assert.equal(ns.log.entries[0].title, 'Sync error delivered');

    const sent = ns.https.exchanges[0];
    assert.equal(sent.headers['X-Tenant-Id'], 'demo');
    // The service derives the same id (syncerror.HostMessageID, pinned to this value in
    // shared/syncerror/intake/hostid_test.go) and so needs no record of it.
    assert.equal(sent.headers['webhook-id'], 'msg_de737aff22fe8192c9d61050243aed8b');

    const row = await proposal(body.id);
    assert.equal(row.status, 200, JSON.stringify(row.body));
    assert.equal(row.body.errorId, 'NS-ERR-1001');
    assert.equal(row.body.recordType, 'salesOrder');
    assert.equal(row.body.recordId, 'SO-10042');
    assert.equal(row.body.errorCode, 'INVALID_FIELD_VALUE');
    assert.equal(row.body.status, 'pending');
    assert.deepEqual(row.body.error.payload, { shipcountry: 'Deutschland', shipzip: '10115', total: 129.5 });
    assert.equal(row.body.error.direction, 'inbound');
    assert.equal(row.body.error.externalSystem, 'webshop');
    assert.equal(row.body.error.occurredAt, '2026-11-22T09:30:00Z');
  });

  test('saving the same record again is a duplicate the service recognises, under the same webhook-id', () => {
    const ns = account();
    const rec = ns.createSyncError(sampleFields('NS-ERR-1002'));
    ns.edit(rec, { custrecord_sea_message: 'Edited after the first save' });

    const [first, second] = ns.answers();
    assert.equal(first.code, 202);
    assert.equal(first.body.duplicate, false);
    assert.equal(second.code, 202, JSON.stringify(second.body));
    assert.equal(second.body.duplicate, true);
    assert.equal(second.body.id, first.body.id);
    const [a, b] = ns.https.exchanges;
    assert.equal(b.headers['webhook-id'], a.headers['webhook-id']);
    assert.deepEqual(levels(ns.log), ['AUDIT', 'AUDIT']);
    assert.equal(ns.log.entries[1].title, 'Sync error already known to the service');
  });

  test('a wrong secret is answered 401, the save goes on, and nothing was stored', () => {
    const wrong = account({ secrets: { [SECRET_ID]: Buffer.from('not-the-tenant-secret-at-all!!!!').toString('base64') } });
    assert.doesNotThrow(() => wrong.createSyncError(sampleFields('NS-ERR-1003')));
    const [answer] = wrong.answers();
    assert.equal(answer.code, 401);
    assert.equal(answer.body.code, 'invalid_signature');
    assert.deepEqual(levels(wrong.log), ['ERROR']);
    assert.match(wrong.log.entries[0].details, /"httpStatus":401.*"code":"invalid_signature"/);

    // Once the secret is right, the same error is new to the service: the 401 stored nothing.
    const right = account();
    right.createSyncError(sampleFields('NS-ERR-1003'));
    const [fixed] = right.answers();
    assert.equal(fixed.code, 202);
    assert.equal(fixed.body.duplicate, false);
  });

  test('an unreachable ingest URL does not fail the save', async () => {
    const port = await stack.freePort(); // free a moment ago, so nothing listens there
    const ns = account({
      parameters: {
        custscript_sea_ingest_url: `http://127.0.0.1:${port}/api/sync-error-assist/ingest`,
        custscript_sea_tenant_id: 'demo',
        custscript_sea_secret_id: SECRET_ID,
      },
    });
    assert.doesNotThrow(() => ns.createSyncError(sampleFields('NS-ERR-1004')));
    assert.equal(ns.https.exchanges.length, 1);
    assert.ok(ns.https.exchanges[0].error, 'the post was attempted and failed');
    assert.deepEqual(levels(ns.log), ['ERROR']);
    assert.match(ns.log.entries[0].details, /SSS_REQUEST_TIME_EXCEEDED/);
  });

  test('a throttled post (429) is logged as transient, not as a rejection', () => {
    // API Gateway's throttle answers before the service does; N/https returns its answer
    // as it would any other.
    const exchanges = [];
    const throttled = {
      post(options) {
        const response = { code: 429, headers: {}, body: JSON.stringify({ message: 'Too Many Requests' }) };
        exchanges.push({ headers: options.headers, response });
        return response;
      },
    };
    const ns = account({ https: throttled });
    assert.doesNotThrow(() => ns.createSyncError(sampleFields('NS-ERR-1005')));
    assert.equal(exchanges.length, 1);
    assert.deepEqual(levels(ns.log), ['ERROR']);
    assert.equal(ns.log.entries[0].title, 'Sync error not delivered; the reconcile will retry');
    assert.match(ns.log.entries[0].details, /"httpStatus":429/);
  });

  test('an API secret the script cannot use: nothing is posted, the save goes on', () => {
    const ns = account({ secrets: {} });
    assert.doesNotThrow(() => ns.createSyncError(sampleFields('NS-ERR-1005')));
    assert.equal(ns.https.exchanges.length, 0);
    assert.deepEqual(levels(ns.log), ['ERROR']);
    assert.match(ns.log.entries[0].details, /custsecret_sea_ingest/);
  });

  test('missing script parameters: nothing is posted, the log names them', () => {
    const ns = account({ parameters: { custscript_sea_ingest_url: `${service.base}/api/sync-error-assist/ingest` } });
    assert.doesNotThrow(() => ns.createSyncError(sampleFields('NS-ERR-1006')));
    assert.equal(ns.https.exchanges.length, 0);
    assert.deepEqual(levels(ns.log), ['ERROR']);
    assert.match(ns.log.entries[0].details, /custscript_sea_tenant_id.*custscript_sea_secret_id/);
  });

  test('inline edits and deletes post nothing', () => {
    const ns = account();
    const rec = ns.createSyncError(sampleFields('NS-ERR-1007'));
    ns.edit(rec, { custrecord_sea_error_code: 'OTHER' }, UserEventType.XEDIT);
    ns.remove(rec);
    assert.equal(ns.https.exchanges.length, 1);
  });

  test('a payload that is not a JSON object and an unknown direction still reach the service, in context', async () => {
    const ns = account();
    ns.createSyncError(Object.assign(sampleFields('NS-ERR-1008'), {
      custrecord_sea_payload: 'shipcountry=Deutschland',
      custrecord_sea_direction: 'sideways',
      custrecord_sea_occurred_at: 'yesterday',
    }));
    const [answer] = ns.answers();
    assert.equal(answer.code, 202, JSON.stringify(answer.body));
    const row = await proposal(answer.body.id);
    assert.equal(row.body.error.payload, undefined);
    assert.equal(row.body.error.direction, undefined);
    assert.equal(row.body.error.context.payloadText, 'shipcountry=Deutschland');
    assert.equal(row.body.error.context.directionText, 'sideways');
    assert.equal(row.body.error.context.occurredAtText, 'yesterday');
    assert.match(row.body.error.occurredAt, /^\d{4}-\d\d-\d\dT/);
  });

  test('a payload number with more digits than a double keeps reaches the service with its digits', async () => {
    const ns = account();
    const payload = '{"ref": 12345678901234567890, "amount": 0.12345678901234567891}';
    // Its own record id: errors that differ only in payload fold into one row (syncerror.Signature).
    ns.createSyncError(Object.assign(sampleFields('NS-ERR-1009'), { custrecord_sea_record_id: 'SO-10109', custrecord_sea_payload: payload }));
    const [answer] = ns.answers();
    // 202: the signature covers the body as sent, spliced payload included.
    assert.equal(answer.code, 202, JSON.stringify(answer.body));
    const sent = ns.https.exchanges[0].body;
    assert.ok(sent.includes(`"payload":${payload},"context":{`), sent);
    // Everything but the payload is what JSON.stringify made of it before.
    const parsed = JSON.parse(sent);
    assert.equal(sent.replace(payload, JSON.stringify(parsed.payload)), JSON.stringify(parsed));

    const row = await proposal(answer.body.id);
    assert.equal(row.status, 200, row.text);
    assert.equal(row.body.errorId, 'NS-ERR-1009');
    assert.match(row.text, /"payload":\s*\{\s*"ref":\s*12345678901234567890,\s*"amount":\s*0\.12345678901234567891\s*\}/);

    // Exact numbers, however written, go as before: JSON.stringify of the parsed body.
    ns.createSyncError(Object.assign(sampleFields('NS-ERR-1010'), { custrecord_sea_record_id: 'SO-10110', custrecord_sea_payload: '{ "total": 129.50, "qty": 1e2 }' }));
    const exact = ns.https.exchanges[1];
    assert.equal(exact.response.code, 202, exact.response.body);
    assert.equal(exact.body, JSON.stringify(JSON.parse(exact.body)));
    assert.ok(exact.body.includes('"payload":{"total":129.5,"qty":100},'), exact.body);
  });

  test('a record without an error id is one sync error across saves, named after its internal id', () => {
    const ns = account();
    const fields = sampleFields('');
    const rec = ns.createSyncError(fields);
    ns.edit(rec, {});
    const [first, second] = ns.answers();
    assert.equal(first.code, 202, JSON.stringify(first.body));
    assert.equal(second.body.duplicate, true);
    assert.equal(JSON.parse(ns.https.exchanges[0].body).errorId, `ns-sync-error-${rec.id}`);
  });
});
