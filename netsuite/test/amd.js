'use strict';
// A tiny AMD loader for one SuiteScript entry point. The script runs in a fresh V8 context
// that has the language's built-ins and SuiteScript's global define and log, and nothing of
// Node's (no require, process or Buffer), so a Node-only call fails here as it would in
// NetSuite. N/* module ids resolve to the stand-ins given; a relative id ("./sea_exact_json")
// is a custom module and loads the real file from the dependent file's folder, as NetSuite's
// "Module Dependency Paths" describes, run under the same rules in a fresh context of its own.
const fs = require('node:fs');
const path = require('node:path');
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
  if (calls !== 1) throw new Error(`${file}: a script or module file calls define once, not ${calls} times`);
}

const isRelative = (id) => id.startsWith('./') || id.startsWith('../');

/**
 * resolve returns the file a relative module id names. NetSuite's paths carry no file
 * extension; the file has one.
 */
function resolve(fromFile, id) {
  return path.resolve(path.dirname(fromFile), `${id}.js`);
}

/** dependencies returns the module ids the file's define names, without running it. */
function dependencies(file) {
  let ids;
  runDefine(file, (deps) => { ids = deps; }, { log: {} });
  return ids;
}

function instantiate(file, modules, loaded, chain) {
  if (loaded.has(file)) return loaded.get(file);
  if (chain.includes(file)) throw new Error(`${file}: circular module dependency ${chain.join(' -> ')}`);
  let exported;
  runDefine(file, (deps, factory) => {
    const args = deps.map((id) => {
      if (isRelative(id)) {
        const dep = resolve(file, id);
        // NetSuite answers MODULE_DOES_NOT_EXIST for a path with no file behind it.
        if (!fs.existsSync(dep)) throw new Error(`${file}: no module file for ${id} (${dep})`);
        return instantiate(dep, modules, loaded, chain.concat(file));
      }
      if (!Object.prototype.hasOwnProperty.call(modules, id)) throw new Error(`${file}: no stand-in for ${id}`);
      return modules[id];
    });
    exported = factory(...args);
  }, { log: modules['N/log'] });
  loaded.set(file, exported);
  return exported;
}

/**
 * load runs the script's factory with the stand-ins and its custom modules, each module
 * once per load, and returns its entry points.
 */
function load(file, modules) {
  return instantiate(path.resolve(file), modules, new Map(), []);
}

module.exports = { dependencies, load, resolve, isRelative };
