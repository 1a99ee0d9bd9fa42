'use strict';
// The shape of N/error's error.SuiteScriptError (name, message, id, cause, type), which is what
// SuiteScript's own modules throw; scripts see these, never Node errors.
function suiteScriptError(name, message, cause) {
  const e = new Error(message);
  e.name = name;
  e.id = '';
  e.type = 'error.SuiteScriptError';
  if (cause !== undefined) e.cause = cause;
  return e;
}

function requireOptions(options, names, where) {
  if (options === null || typeof options !== 'object') {
    throw suiteScriptError('SSS_MISSING_REQD_ARGUMENT', `${where}: missing a required argument: options`);
  }
  for (const name of names) {
    if (options[name] === undefined || options[name] === null || options[name] === '') {
      throw suiteScriptError('SSS_MISSING_REQD_ARGUMENT', `${where}: missing a required argument: options.${name}`);
    }
  }
}

module.exports = { suiteScriptError, requireOptions };
