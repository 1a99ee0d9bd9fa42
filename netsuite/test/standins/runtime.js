'use strict';
// N/runtime as documented ("runtime.getCurrentScript()", "runtime.Script",
// "Script.getParameter(options)", "runtime.accountId"): parameters are the values set on the
// script deployment, read by their custscript_ ids.
const { suiteScriptError } = require('./error');

/**
 * @param {{accountId?: string, scriptId?: string, deploymentId?: string, parameters?: Object<string, *>, remainingUsage?: function(): number}} deployment
 */
function createRuntime(deployment = {}) {
  const parameters = deployment.parameters || {};
  const script = Object.freeze({
    id: deployment.scriptId || 'customscript_sea_sync_error_ue',
    deploymentId: deployment.deploymentId || 'customdeploy_sea_sync_error_ue',
    getParameter(options) {
      if (!options || options.name === undefined || options.name === null) {
        throw suiteScriptError('SSS_MISSING_REQD_ARGUMENT', 'Script.getParameter: missing a required argument: options.name');
      }
      if (typeof options.name !== 'string') {
        throw suiteScriptError('WRONG_PARAMETER_TYPE', 'Script.getParameter: options.name must be a string');
      }
      // A parameter the deployment leaves empty (or the script does not define) reads as null.
      return Object.prototype.hasOwnProperty.call(parameters, options.name) ? parameters[options.name] : null;
    },
    getRemainingUsage: deployment.remainingUsage || (() => 1000),
  });
  return Object.freeze({
    accountId: deployment.accountId || 'TSTDRV0000000',
    envType: 'SANDBOX',
    getCurrentScript: () => script,
  });
}

module.exports = { createRuntime };
