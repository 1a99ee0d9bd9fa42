'use strict';
// Runs the retry script under Node with the N/* stand-ins: the service has ticked
// custrecord_sea_retry_requested on sync errors (as its connector does through the REST
// record service); a scheduled run re-runs each one's sync and records the outcome where
// the service reads it.
const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const amd = require('./amd');
const { createLog } = require('./standins/log');
const { createRecordModule } = require('./standins/record');
const { createRuntime } = require('./standins/runtime');
const { createSearch } = require('./standins/search');

const project = path.resolve(__dirname, '..', 'src');
const SCRIPT = path.join(project, 'FileCabinet', 'SuiteScripts', 'sync_error_assist', 'sea_sync_error_retry_ss.js');
const RECORD_TYPE = 'customrecord_sea_sync_error';
const recordXML = fs.readFileSync(path.join(project, 'Objects', `${RECORD_TYPE}.xml`), 'utf8');
const recordFields = [...recordXML.matchAll(/<customrecordcustomfield scriptid="([^"]+)"/g)].map((m) => m[1]);

function account({ usage } = {}) {
  const log = createLog();
  const record = createRecordModule({ [RECORD_TYPE]: recordFields, salesorder: ['shipcity', 'memo', 'shipcountry', 'otherrefnum', 'custbody_weight', 'custbody_count'] });
  let saves = 0;
  const counted = Object.freeze(Object.assign({}, record, {
    load(options) {
      const rec = record.load(options);
      const save = rec.save;
      rec.save = () => { saves++; return save(); };
      return rec;
    },
  }));
  const runtime = createRuntime({ scriptId: 'customscript_sea_sync_error_retry_ss', remainingUsage: usage });
  const script = amd.load(SCRIPT, { 'N/log': log, 'N/record': counted, 'N/runtime': runtime, 'N/search': createSearch(record) });
  assert.equal(typeof script.execute, 'function');
  const create = (type, values) => {
    const rec = record.create({ type });
    for (const [fieldId, value] of Object.entries(values)) rec.setValue({ fieldId, value });
    return rec.save();
  };
  return { log, record, script, create, saves: () => saves };
}

function syncError(values) {
  return Object.assign({
    custrecord_sea_error_id: 'WS-1', custrecord_sea_record_type: 'salesOrder', custrecord_sea_record_id: '',
    custrecord_sea_error_code: 'TIMEOUT', custrecord_sea_message: 'the webshop timed out',
    custrecord_sea_direction: 'inbound', custrecord_sea_payload: JSON.stringify({ memo: 'from the webshop', shipcity: 'Köln' }),
    custrecord_sea_retry_requested: true, custrecord_sea_retry_status: 'requested',
  }, values);
}

const get = (ns, type, id, fieldId) => ns.record.load({ type, id }).getValue({ fieldId });

describe('the retry script', () => {
  test('re-runs a requested inbound sync with its payload and records success', () => {
    const ns = account();
    const order = ns.create('salesorder', { shipcity: 'Berlin', memo: '' });
    const asked = ns.create(RECORD_TYPE, syncError({ custrecord_sea_record_id: String(order) }));
    const left = ns.create(RECORD_TYPE, syncError({ custrecord_sea_record_id: String(order), custrecord_sea_retry_requested: false, custrecord_sea_retry_status: '' }));
    ns.script.execute({ type: 'SCHEDULED' });

    assert.equal(get(ns, 'salesorder', order, 'memo'), 'from the webshop');
    assert.equal(get(ns, 'salesorder', order, 'shipcity'), 'Köln');
    assert.equal(get(ns, RECORD_TYPE, asked, 'custrecord_sea_retry_requested'), false);
    assert.equal(get(ns, RECORD_TYPE, asked, 'custrecord_sea_retry_status'), 'succeeded');
    assert.match(get(ns, RECORD_TYPE, asked, 'custrecord_sea_retry_result'), new RegExp(`^re-ran the sync of salesorder ${order} at `));
    assert.equal(get(ns, RECORD_TYPE, left, 'custrecord_sea_retry_status'), '', 'a record nobody asked for is left alone');
    assert.deepEqual(ns.log.entries.map((e) => [e.level, e.title]), [['AUDIT', 'Sync re-run']]);
    // A second run finds nothing to do.
    const before = ns.saves();
    ns.script.execute({ type: 'SCHEDULED' });
    assert.equal(ns.saves(), before);
  });

  test('the approved fix the service sent wins over the stored payload, and the request is cleared', () => {
    const ns = account();
    // The service wrote the fix to the order before it asked for the re-run.
    const order = ns.create('salesorder', { shipcity: 'Köln', memo: '', shipcountry: 'DE' });
    const asked = ns.create(RECORD_TYPE, syncError({
      custrecord_sea_record_id: String(order),
      custrecord_sea_payload: JSON.stringify({ memo: 'from the webshop', shipcity: 'Koeln', shipcountry: 'Deutschland' }),
      custrecord_sea_retry_fix: JSON.stringify({ shipcountry: 'DE', shipcity: 'Köln' }),
    }));
    ns.script.execute({ type: 'SCHEDULED' });

    assert.equal(get(ns, 'salesorder', order, 'shipcountry'), 'DE', 'the payload did not undo the fix');
    assert.equal(get(ns, 'salesorder', order, 'shipcity'), 'Köln');
    assert.equal(get(ns, 'salesorder', order, 'memo'), 'from the webshop', 'the rest of the payload still arrives');
    assert.equal(get(ns, RECORD_TYPE, asked, 'custrecord_sea_retry_status'), 'succeeded');
    assert.equal(get(ns, RECORD_TYPE, asked, 'custrecord_sea_retry_requested'), false);
    assert.equal(get(ns, RECORD_TYPE, asked, 'custrecord_sea_retry_fix'), '', 'the fix is cleared with the request');
  });

  test('a fix the script cannot read fails the re-run and writes nothing to the record', () => {
    const ns = account();
    const order = ns.create('salesorder', { shipcity: 'Berlin', memo: '' });
    const asked = ns.create(RECORD_TYPE, syncError({ custrecord_sea_record_id: String(order), custrecord_sea_retry_fix: '["shipcity"]' }));
    ns.script.execute({ type: 'SCHEDULED' });
    assert.equal(get(ns, 'salesorder', order, 'shipcity'), 'Berlin', 'the payload was not applied without the fix');
    assert.equal(get(ns, RECORD_TYPE, asked, 'custrecord_sea_retry_status'), 'failed');
    assert.match(get(ns, RECORD_TYPE, asked, 'custrecord_sea_retry_result'), /^SEA_INVALID_FIX: /);
    assert.equal(get(ns, RECORD_TYPE, asked, 'custrecord_sea_retry_requested'), false);
    assert.equal(get(ns, RECORD_TYPE, asked, 'custrecord_sea_retry_fix'), '');
  });

  test('an outbound sync is re-run by saving the record unchanged', () => {
    const ns = account();
    const order = ns.create('salesorder', { shipcity: 'Berlin', memo: 'kept' });
    const asked = ns.create(RECORD_TYPE, syncError({ custrecord_sea_record_id: String(order), custrecord_sea_direction: 'outbound' }));
    ns.script.execute({ type: 'SCHEDULED' });
    assert.equal(get(ns, 'salesorder', order, 'memo'), 'kept');
    assert.equal(get(ns, RECORD_TYPE, asked, 'custrecord_sea_retry_status'), 'succeeded');
    assert.equal(ns.saves(), 2, 'the record and the sync error are each saved once');
  });

  test('a re-run that fails is recorded as failed with the error, and the request is cleared', () => {
    const ns = account();
    const asked = ns.create(RECORD_TYPE, syncError({ custrecord_sea_record_id: '999' }));
    const nameless = ns.create(RECORD_TYPE, syncError({ custrecord_sea_record_type: '' }));
    ns.script.execute({ type: 'SCHEDULED' });
    assert.equal(get(ns, RECORD_TYPE, asked, 'custrecord_sea_retry_status'), 'failed');
    assert.match(get(ns, RECORD_TYPE, asked, 'custrecord_sea_retry_result'), /^RCRD_DSNT_EXIST: /);
    assert.equal(get(ns, RECORD_TYPE, asked, 'custrecord_sea_retry_requested'), false);
    assert.match(get(ns, RECORD_TYPE, nameless, 'custrecord_sea_retry_result'), /^SEA_NO_RECORD: /);
    assert.deepEqual(ns.log.entries.map((e) => e.title), ['Sync re-run failed', 'Sync re-run failed']);
  });

  // A JSON number with more digits than a double keeps comes out of JSON.parse as another
  // number; a write must carry only values someone vouched for, so the re-run fails whole.
  test('a fix holding a number JSON.parse would change fails the re-run and leaves the record untouched', () => {
    const ns = account();
    const order = ns.create('salesorder', { shipcity: 'Berlin', memo: '', otherrefnum: 'PO-1' });
    const before = ns.record.savedOf('salesorder')[0].values;
    const asked = ns.create(RECORD_TYPE, syncError({
      custrecord_sea_record_id: String(order),
      custrecord_sea_retry_fix: '{"shipcity": "Köln", "otherrefnum": 12345678901234567890}',
    }));
    const saves = ns.saves();
    ns.script.execute({ type: 'SCHEDULED' });

    assert.deepEqual(ns.record.savedOf('salesorder')[0].values, before, 'neither the payload nor the rest of the fix was written');
    assert.equal(ns.saves(), saves + 1, 'only the sync error is saved, not the order');
    assert.equal(get(ns, RECORD_TYPE, asked, 'custrecord_sea_retry_status'), 'failed');
    const result = get(ns, RECORD_TYPE, asked, 'custrecord_sea_retry_result');
    assert.match(result, /^SEA_INEXACT_NUMBER: /);
    assert.match(result, /custrecord_sea_retry_fix otherrefnum 12345678901234567890 \(parsed as 12345678901234567000\)/);
    assert.match(result, new RegExp(`nothing was written to salesorder ${order}$`));
    assert.equal(get(ns, RECORD_TYPE, asked, 'custrecord_sea_retry_requested'), false);
    assert.equal(get(ns, RECORD_TYPE, asked, 'custrecord_sea_retry_fix'), '');
    assert.deepEqual(ns.log.entries.map((e) => [e.level, e.title]), [['ERROR', 'Sync re-run failed']]);
  });

  test('an inbound payload holding a number JSON.parse would change fails the re-run and leaves the record untouched', () => {
    const ns = account();
    const order = ns.create('salesorder', { shipcity: 'Berlin', memo: '' });
    const before = ns.record.savedOf('salesorder')[0].values;
    const asked = ns.create(RECORD_TYPE, syncError({
      custrecord_sea_record_id: String(order),
      custrecord_sea_payload: '{"memo": "from the webshop", "custbody_weight": 0.12345678901234567891, "custbody_count": 9007199254740993}',
    }));
    ns.script.execute({ type: 'SCHEDULED' });

    assert.deepEqual(ns.record.savedOf('salesorder')[0].values, before, 'nothing of the payload was written');
    assert.equal(get(ns, RECORD_TYPE, asked, 'custrecord_sea_retry_status'), 'failed');
    const result = get(ns, RECORD_TYPE, asked, 'custrecord_sea_retry_result');
    assert.match(result, /^SEA_INEXACT_NUMBER: custrecord_sea_payload custbody_weight 0\.12345678901234567891 \(parsed as 0\.12345678901234568\); custrecord_sea_payload custbody_count 9007199254740993 \(parsed as 9007199254740992\): /);
    assert.equal(get(ns, RECORD_TYPE, asked, 'custrecord_sea_retry_requested'), false);
  });

  test('exact numbers still apply: a fix holding 129.50 and 1e2, a payload holding 1.5', () => {
    const ns = account();
    const order = ns.create('salesorder', { shipcity: 'Berlin', memo: '' });
    const asked = ns.create(RECORD_TYPE, syncError({
      custrecord_sea_record_id: String(order),
      custrecord_sea_payload: '{"memo": "from the webshop", "custbody_weight": 1.5}',
      custrecord_sea_retry_fix: '{"custbody_weight": 129.50, "custbody_count": 1e2}',
    }));
    ns.script.execute({ type: 'SCHEDULED' });
    assert.equal(get(ns, RECORD_TYPE, asked, 'custrecord_sea_retry_status'), 'succeeded', get(ns, RECORD_TYPE, asked, 'custrecord_sea_retry_result'));
    assert.equal(get(ns, 'salesorder', order, 'custbody_weight'), 129.5);
    assert.equal(get(ns, 'salesorder', order, 'custbody_count'), 100);
    assert.equal(get(ns, 'salesorder', order, 'memo'), 'from the webshop');
  });

  test('a payload number the fix replaces is never written, so it does not fail the re-run', () => {
    const ns = account();
    const order = ns.create('salesorder', { shipcity: 'Berlin', memo: '', otherrefnum: '' });
    const asked = ns.create(RECORD_TYPE, syncError({
      custrecord_sea_record_id: String(order),
      custrecord_sea_payload: '{"memo": "from the webshop", "otherrefnum": 12345678901234567890}',
      custrecord_sea_retry_fix: '{"otherrefnum": "12345678901234567890"}',
    }));
    ns.script.execute({ type: 'SCHEDULED' });
    assert.equal(get(ns, RECORD_TYPE, asked, 'custrecord_sea_retry_status'), 'succeeded', get(ns, RECORD_TYPE, asked, 'custrecord_sea_retry_result'));
    assert.equal(get(ns, 'salesorder', order, 'otherrefnum'), '12345678901234567890');
    assert.equal(get(ns, 'salesorder', order, 'memo'), 'from the webshop');
  });

  test('an outbound error\'s payload is not applied, so its numbers do not matter', () => {
    const ns = account();
    const order = ns.create('salesorder', { shipcity: 'Berlin', memo: 'kept' });
    const asked = ns.create(RECORD_TYPE, syncError({
      custrecord_sea_record_id: String(order), custrecord_sea_direction: 'outbound',
      custrecord_sea_payload: '{"otherrefnum": 12345678901234567890}',
    }));
    ns.script.execute({ type: 'SCHEDULED' });
    assert.equal(get(ns, RECORD_TYPE, asked, 'custrecord_sea_retry_status'), 'succeeded');
    assert.equal(get(ns, 'salesorder', order, 'memo'), 'kept');
  });

  test('a run low on governance stops and leaves the rest requested for the next run', () => {
    // What the stand-in runtime reports left before each retry: enough for two.
    const left = [300, 220, 140];
    const ns = account({ usage: () => left.shift() });
    const order = ns.create('salesorder', { shipcity: 'Berlin' });
    const ids = [1, 2, 3].map(() => ns.create(RECORD_TYPE, syncError({ custrecord_sea_record_id: String(order) })));
    ns.script.execute({ type: 'SCHEDULED' });
    assert.deepEqual(ids.map((id) => get(ns, RECORD_TYPE, id, 'custrecord_sea_retry_status')), ['succeeded', 'succeeded', 'requested']);
    assert.equal(get(ns, RECORD_TYPE, ids[2], 'custrecord_sea_retry_requested'), true);
    const last = ns.log.entries[ns.log.entries.length - 1];
    assert.equal(last.title, 'Sync re-runs left for the next run');
    assert.deepEqual(JSON.parse(last.details), { done: 2, left: 1 });
  });
});
