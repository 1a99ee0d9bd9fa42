'use strict';
// N/record as documented ("record.create(options)", "record.load(options)", "record.Record":
// id, type, getValue(options), setValue(options), save()). The field ids a record type has come
// from its SDF customrecordtype object, so a script reading a field the record lacks gets
// undefined, as it would in NetSuite; saving stamps the system fields created and lastmodified.
const { suiteScriptError, requireOptions } = require('./error');

/** @param {Object<string, string[]>} types the custom field ids of each record type */
function createRecordModule(types) {
  const saved = new Map(); // "type:id" -> field values
  let nextId = 100;

  function fieldsOf(type) {
    if (!Object.prototype.hasOwnProperty.call(types, type)) {
      throw suiteScriptError('INVALID_RCRD_TYPE', `record: ${type} is not a record type of this account`);
    }
    return types[type];
  }

  function makeRecord(type, id, values) {
    const fields = fieldsOf(type);
    const isField = (fieldId) => fields.indexOf(fieldId) >= 0 || fieldId === 'created' || fieldId === 'lastmodified';
    const fieldIdOf = (options, where) => {
      const fieldId = typeof options === 'string' ? options : options && options.fieldId;
      if (!fieldId) throw suiteScriptError('SSS_MISSING_REQD_ARGUMENT', `${where}: missing a required argument: options.fieldId`);
      return fieldId;
    };
    const rec = {
      type,
      id,
      isDynamic: false,
      getValue(options) {
        const fieldId = fieldIdOf(options, 'Record.getValue');
        if (!isField(fieldId)) return undefined;
        return Object.prototype.hasOwnProperty.call(values, fieldId) ? values[fieldId] : '';
      },
      setValue(options) {
        const fieldId = fieldIdOf(options, 'Record.setValue');
        // A typo in a test's field id should fail the test, not be dropped silently.
        if (!isField(fieldId)) throw new Error(`record stand-in: ${type} has no field ${fieldId}`);
        values[fieldId] = options.value;
        return rec;
      },
      save() {
        if (rec.id === null) rec.id = nextId++;
        const now = new Date();
        if (!values.created) values.created = now;
        values.lastmodified = now;
        saved.set(`${type}:${rec.id}`, Object.assign({}, values));
        return rec.id;
      },
    };
    return rec;
  }

  return Object.freeze({
    // Not N/record: the saved records of a type, for the N/search stand-in to search.
    savedOf(type) {
      const out = [];
      for (const [key, values] of saved) {
        const [t, id] = key.split(':');
        if (t === type) out.push({ id: Number(id), values: Object.assign({}, values) });
      }
      return out;
    },
    create(options) {
      requireOptions(options, ['type'], 'record.create');
      return makeRecord(options.type, null, {});
    },
    load(options) {
      requireOptions(options, ['type', 'id'], 'record.load');
      const values = saved.get(`${options.type}:${options.id}`);
      if (!values) throw suiteScriptError('RCRD_DSNT_EXIST', `record.load: no ${options.type} with id ${options.id}`);
      return makeRecord(options.type, Number(options.id), Object.assign({}, values));
    },
  });
}

module.exports = { createRecordModule };
