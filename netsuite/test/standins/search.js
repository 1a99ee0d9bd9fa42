'use strict';
// N/search as documented ("search.create(options)", "search.Search.run()",
// "search.ResultSet.each(callback)", "search.Result": id, getValue): a search of one record
// type over the N/record stand-in's saved records, with filter expressions of
// [fieldId, 'is', value] terms joined by 'and'. A checkbox is 'T' or 'F' in a filter, as in
// NetSuite; each stops when the callback returns false (at most 4,000 results, as in NetSuite).
const { suiteScriptError, requireOptions } = require('./error');

function createSearch(recordModule) {
  function matches(values, filters) {
    const terms = (filters || []).filter((f) => Array.isArray(f));
    return terms.every(([fieldId, operator, want]) => {
      if (operator !== 'is') throw suiteScriptError('SSS_INVALID_SRCH_OPERATOR', `search stand-in: operator ${operator} is not supported`);
      let have = values[fieldId];
      if (typeof have === 'boolean') have = have ? 'T' : 'F';
      if (have === undefined || have === null || have === '') have = want === 'T' || want === 'F' ? 'F' : '';
      return String(have) === String(want);
    });
  }
  return Object.freeze({
    create(options) {
      requireOptions(options, ['type'], 'search.create');
      return Object.freeze({
        run() {
          return Object.freeze({
            each(callback) {
              const rows = recordModule.savedOf(options.type).filter((r) => matches(r.values, options.filters));
              for (const row of rows.slice(0, 4000)) {
                const result = { id: String(row.id), recordType: options.type, getValue: (c) => row.values[typeof c === 'string' ? c : c.name] };
                if (callback(result) === false) return;
              }
            },
          });
        },
      });
    },
  });
}

module.exports = { createSearch };
