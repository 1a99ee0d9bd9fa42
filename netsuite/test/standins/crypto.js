'use strict';
// N/crypto as documented ("crypto.createSecretKey(options)", "crypto.SecretKey",
// "crypto.createHmac(options)", "Hmac.update(options)", "Hmac.digest(options)",
// "crypto.createHash(options)", "Hash.update/digest", "crypto.HashAlg"). A SecretKey is a
// handle: it names an API secret (options.secret, its script ID) or a GUID and never holds the
// key; the key is looked up in the account's secret store when an Hmac uses it.
const nodeCrypto = require('node:crypto');
const encode = require('./encode');
const { suiteScriptError, requireOptions } = require('./error');

// The documented values; SHA1 and MD5 are not among them.
const HashAlg = Object.freeze({ SHA256: 'SHA256', SHA512: 'SHA512' });
const nodeAlg = { SHA256: 'sha256', SHA512: 'sha512' };

function algorithmOf(options, where) {
  requireOptions(options, ['algorithm'], where);
  if (!Object.prototype.hasOwnProperty.call(HashAlg, options.algorithm)) {
    throw suiteScriptError('INVALID_ALGORITHM', `${where}: ${options.algorithm} is not a crypto.HashAlg value`);
  }
  return nodeAlg[options.algorithm];
}

// The two digest objects share update/digest with the documented defaults (input UTF_8,
// output HEX) and, like their Node counterparts, refuse a second digest.
function digester(nodeObject, name) {
  let done = false;
  return Object.freeze({
    update(options) {
      requireOptions(options, [], `${name}.update`);
      if (typeof options.input !== 'string') {
        throw suiteScriptError('SSS_MISSING_REQD_ARGUMENT', `${name}.update: missing a required argument: options.input`);
      }
      nodeObject.update(encode.toBytes(options.input, options.inputEncoding || encode.Encoding.UTF_8, `${name}.update`));
    },
    digest(options) {
      if (done) throw suiteScriptError('INVALID_STATE', `${name}.digest: already digested`);
      done = true;
      const out = (options && options.outputEncoding) || encode.Encoding.HEX;
      return encode.fromBytes(nodeObject.digest(), out, `${name}.digest`);
    },
    toString: () => `crypto.${name}`,
  });
}

/**
 * @param {{secrets?: Object<string,string>, guids?: Object<string,string>}} account the
 *   clear-text values of API secrets by script ID (Setup > Company > API Secrets) and of
 *   credential-field GUIDs
 */
function createCrypto(account = {}) {
  const secrets = account.secrets || {};
  const guids = account.guids || {};
  const handles = new WeakSet();

  function createSecretKey(options) {
    requireOptions(options, [], 'crypto.createSecretKey');
    const hasGuid = options.guid !== undefined && options.guid !== null && options.guid !== '';
    const hasSecret = options.secret !== undefined && options.secret !== null && options.secret !== '';
    if (hasGuid === hasSecret) {
      throw suiteScriptError(hasGuid ? 'INVALID_OPTIONS' : 'SSS_MISSING_REQD_ARGUMENT',
        'crypto.createSecretKey: give exactly one of options.guid and options.secret');
    }
    const encoding = options.encoding || encode.Encoding.UTF_8;
    encode.toBytes('', encoding, 'crypto.createSecretKey'); // rejects values that are not encode.Encoding
    const key = Object.freeze({
      guid: hasGuid ? String(options.guid) : undefined,
      secret: hasSecret ? String(options.secret) : undefined,
      encoding,
      toString: () => 'crypto.SecretKey',
    });
    handles.add(key);
    return key;
  }

  function keyBytes(key, where) {
    if (!handles.has(key)) throw suiteScriptError('INVALID_KEY', `${where}: options.key is not a crypto.SecretKey`);
    const store = key.secret !== undefined ? secrets : guids;
    const name = key.secret !== undefined ? key.secret : key.guid;
    if (!Object.prototype.hasOwnProperty.call(store, name)) {
      throw suiteScriptError('INVALID_SECRET_KEY', `${where}: no API secret or credential ${name} is available to this script`);
    }
    return encode.toBytes(store[name], key.encoding, where);
  }

  function createHmac(options) {
    const algorithm = algorithmOf(options, 'crypto.createHmac');
    requireOptions(options, ['key'], 'crypto.createHmac');
    return digester(nodeCrypto.createHmac(algorithm, keyBytes(options.key, 'crypto.createHmac')), 'Hmac');
  }

  function createHash(options) {
    return digester(nodeCrypto.createHash(algorithmOf(options, 'crypto.createHash')), 'Hash');
  }

  return Object.freeze({ HashAlg, createSecretKey, createHmac, createHash });
}

module.exports = { createCrypto };
