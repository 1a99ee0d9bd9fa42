/**
 * @NApiVersion 2.1
 * @NScriptType ScheduledScript
 * @NModuleScope SameAccount
 *
 * Re-runs the syncs the sync-error triage service asks for. Where the tenant has no
 * connector for the system a sync error is about, the service cannot send the record again
 * itself: it ticks custrecord_sea_retry_requested on the sync error's record instead. This
 * script finds those records, re-runs each one's sync the way NetSuite integrations pick a
 * record up (a save of the record, which runs the integration's own user-event scripts
 * again; an inbound error's payload is applied first, being the values that failed to
 * arrive, then the fix the service's approver approved, custrecord_sea_retry_fix, which the
 * service wrote to the record already and which the stored payload must not undo), and
 * writes the outcome back to the sync error's record, where the service reads it at its
 * next attempt: custrecord_sea_retry_status "succeeded" or "failed" with
 * custrecord_sea_retry_result saying what happened. The request and its fix are cleared.
 *
 * A write carries only values someone vouched for: a JSON number in the fix or the applied
 * payload that JSON.parse would change (more digits than a double keeps) fails the re-run
 * (SEA_INEXACT_NUMBER) before the record is loaded, so nothing is written to it.
 */
define(['N/log', 'N/record', 'N/runtime', 'N/search', './sea_exact_json'], (log, record, runtime, search, exactJSON) => {
  const RECORD_TYPE = 'customrecord_sea_sync_error';

  const FIELD = Object.freeze({
    recordType: 'custrecord_sea_record_type',
    recordId: 'custrecord_sea_record_id',
    payload: 'custrecord_sea_payload',
    direction: 'custrecord_sea_direction',
    requested: 'custrecord_sea_retry_requested',
    status: 'custrecord_sea_retry_status',
    result: 'custrecord_sea_retry_result',
    fix: 'custrecord_sea_retry_fix',
  });

  // A retry loads and saves two records (about 40 units for transactions); a run stops
  // with room to spare and the next scheduled run takes the rest.
  const USAGE_PER_RETRY = 60;
  const USAGE_RESERVE = 100;
  const MAX_PER_RUN = 1000;

  function text(value) {
    if (value === null || value === undefined) return '';
    return String(value);
  }

  function requestedIds() {
    const ids = [];
    search
      .create({ type: RECORD_TYPE, filters: [[FIELD.requested, 'is', 'T']], columns: ['internalid'] })
      .run()
      .each((result) => {
        ids.push(result.id);
        return ids.length < MAX_PER_RUN;
      });
    return ids;
  }

  function objectOf(raw) {
    const parsed = JSON.parse(raw);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : null;
  }

  // inexact names each number of a field's JSON text that JSON.parse changed by field, path
  // and the digits sent, so whoever reads the result can find the value and its source.
  function inexact(fieldId, raw) {
    return exactJSON.inexactNumbers(raw).map((n) => ({ member: n.member, text: `${fieldId} ${n.path || '(value)'} ${n.token} (parsed as ${n.parsed})` }));
  }

  // without returns values minus the fields the fix sets: the fix replaces those, so the
  // payload's values for them are never written.
  function without(values, fix) {
    const out = {};
    Object.keys(values).forEach((fieldId) => {
      if (!Object.prototype.hasOwnProperty.call(fix, fieldId)) out[fieldId] = values[fieldId];
    });
    return out;
  }

  // payloadOf returns the stored payload to apply, and what of it JSON.parse changed.
  function payloadOf(syncError) {
    const raw = text(syncError.getValue({ fieldId: FIELD.payload })).trim();
    if (raw === '') return { values: {}, inexact: [] };
    let values = null;
    try {
      values = objectOf(raw);
    } catch (e) {
      values = null;
    }
    if (values === null) return { values: {}, inexact: [] };
    return { values, inexact: inexact(FIELD.payload, raw) };
  }

  // fixOf is the approved fix the service sent with the request. One it cannot read fails
  // the re-run: saved without it, the stored payload would stand where the fix should.
  function fixOf(syncError) {
    const raw = text(syncError.getValue({ fieldId: FIELD.fix })).trim();
    if (raw === '') return { values: {}, inexact: [] };
    let fix = null;
    try {
      fix = objectOf(raw);
    } catch (e) {
      fix = null;
    }
    if (fix === null) throw { name: 'SEA_INVALID_FIX', message: 'the retry fix is not a JSON object of field ids and values' };
    return { values: fix, inexact: inexact(FIELD.fix, raw) };
  }

  function apply(target, values) {
    Object.keys(values).forEach((fieldId) => target.setValue({ fieldId, value: values[fieldId] }));
  }

  // rerun saves the record the sync error is about, which runs its integration again.
  function rerun(syncError) {
    const type = text(syncError.getValue({ fieldId: FIELD.recordType })).trim().toLowerCase();
    const id = text(syncError.getValue({ fieldId: FIELD.recordId })).trim();
    if (type === '' || id === '') {
      throw { name: 'SEA_NO_RECORD', message: 'the sync error names no record to re-run' };
    }
    const fix = fixOf(syncError);
    const inbound = text(syncError.getValue({ fieldId: FIELD.direction })).trim().toLowerCase() === 'inbound';
    const payload = inbound ? payloadOf(syncError) : { values: {}, inexact: [] };
    // Applying the rest and leaving these out would save a record that is neither the
    // approved state nor the one before, so the whole re-run fails and writes nothing.
    // A payload number in a field the fix replaces is not written, so it does not count:
    // otherwise a fix for exactly such a value could never be re-run.
    const changed = payload.inexact
      .filter((n) => n.member === null || !Object.prototype.hasOwnProperty.call(fix.values, n.member))
      .concat(fix.inexact)
      .map((n) => n.text);
    if (changed.length > 0) {
      throw {
        name: 'SEA_INEXACT_NUMBER',
        message: `${changed.join('; ')}: more digits than a SuiteScript number keeps; nothing was written to ${type} ${id}`,
      };
    }
    const target = record.load({ type, id });
    apply(target, without(payload.values, fix.values));
    // After the payload: the approved fix wins over the values that failed.
    apply(target, fix.values);
    target.save();
    return `${type} ${id}`;
  }

  function finish(syncError, status, result) {
    syncError.setValue({ fieldId: FIELD.requested, value: false });
    syncError.setValue({ fieldId: FIELD.fix, value: '' });
    syncError.setValue({ fieldId: FIELD.status, value: status });
    syncError.setValue({ fieldId: FIELD.result, value: result.slice(0, 4000) });
    syncError.save();
  }

  function retryOne(id) {
    const syncError = record.load({ type: RECORD_TYPE, id });
    let what;
    try {
      what = rerun(syncError);
    } catch (e) {
      const reason = `${text(e && e.name) || 'ERROR'}: ${text(e && e.message)}`;
      finish(syncError, 'failed', reason);
      log.error({ title: 'Sync re-run failed', details: { syncError: id, reason } });
      return;
    }
    finish(syncError, 'succeeded', `re-ran the sync of ${what} at ${new Date().toISOString()}`);
    log.audit({ title: 'Sync re-run', details: { syncError: id, record: what } });
  }

  function execute() {
    const script = runtime.getCurrentScript();
    const ids = requestedIds();
    let done = 0;
    for (let i = 0; i < ids.length; i++) {
      if (script.getRemainingUsage() < USAGE_PER_RETRY + USAGE_RESERVE) {
        log.audit({ title: 'Sync re-runs left for the next run', details: { done, left: ids.length - i } });
        return;
      }
      try {
        retryOne(ids[i]);
        done++;
      } catch (e) {
        // The sync error's own record could not be read or written: it stays requested and
        // the next run tries it again.
        log.error({ title: 'Sync re-run not recorded', details: { syncError: ids[i], name: text(e && e.name), message: text(e && e.message) } });
      }
    }
  }

  return { execute };
});
