'use strict';
// N/log as documented ("log.audit(options)" and its siblings): a title of at most 99
// characters and details of any type, objects JSON-stringified and cut at 3999 characters.
// The Execution Log is kept in entries for the tests to read.
function createLog() {
  const entries = [];
  function writer(level) {
    return function write(titleOrOptions, details) {
      const options = titleOrOptions !== null && typeof titleOrOptions === 'object'
        ? titleOrOptions : { title: titleOrOptions, details };
      const title = options.title === undefined || options.title === null || options.title === ''
        ? 'Untitled' : String(options.title).slice(0, 99);
      let text = options.details;
      if (text !== null && typeof text === 'object') text = JSON.stringify(text);
      text = text === undefined ? '' : String(text).slice(0, 3999);
      entries.push({ level, title, details: text });
    };
  }
  return Object.freeze({
    debug: writer('DEBUG'),
    audit: writer('AUDIT'),
    error: writer('ERROR'),
    emergency: writer('EMERGENCY'),
    entries,
  });
}

module.exports = { createLog };
