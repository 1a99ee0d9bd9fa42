'use strict';
// A tiny AMD loader for one SuiteScript entry point. The script runs in a fresh V8 context
// that has the language's built-ins and SuiteScript's global define and log, and nothing of
// Node's (no require, process or Buffer), so a Node-only call fails here as it would in
// NetSuite. Module ids resolve to the stand-ins given.
const fs = require('node:fs');
const vm = require('node:vm');

function runDefine(file, onDefine, globals) {
  const source = fs.readFileSync(file, 'utf8');
  let calls = 0;
  const define = (deps, factory) => {
    calls++;
    if (typeof deps === 'function') {
      factory = deps;
      deps = [];
    }
    if (!Array.isArray(deps) || typeof factory !== 'function') throw new Error(`${file}: define(deps, factory) expected`);
    onDefine(Array.from(deps), factory);
  };
  vm.runInContext(source, vm.createContext(Object.assign({ define }, globals)), { filename: file });
  if (calls !== 1) throw new Error(`${file}: an entry point script calls define once, not ${calls} times`);
}

/** dependencies returns the module ids the script's define names, without running it. */
function dependencies(file) {
  let ids;
  runDefine(file, (deps) => { ids = deps; }, { log: {} });
  return ids;
}

/** load runs the script's factory with the stand-ins and returns its entry points. */
function load(file, modules) {
  let exported;
  runDefine(file, (deps, factory) => {
    const args = deps.map((id) => {
      if (!Object.prototype.hasOwnProperty.call(modules, id)) throw new Error(`${file}: no stand-in for ${id}`);
      return modules[id];
    });
    exported = factory(...args);
  }, { log: modules['N/log'] });
  return exported;
}

module.exports = { dependencies, load };
