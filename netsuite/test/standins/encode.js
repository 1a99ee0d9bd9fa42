'use strict';
// N/encode as documented ("encode.Encoding", "encode.convert(options)"): the enum is a frozen
// map of string values, and convert re-encodes a string from one encoding to another.
const { suiteScriptError, requireOptions } = require('./error');

const Encoding = Object.freeze({
  UTF_8: 'UTF_8',
  BASE_16: 'BASE_16',
  BASE_32: 'BASE_32',
  BASE_64: 'BASE_64',
  BASE_64_URL_SAFE: 'BASE_64_URL_SAFE',
  HEX: 'HEX',
});

const nodeNames = { UTF_8: 'utf8', BASE_16: 'hex', BASE_64: 'base64', BASE_64_URL_SAFE: 'base64url', HEX: 'hex' };

function nodeEncoding(encoding, where) {
  if (!Object.prototype.hasOwnProperty.call(Encoding, encoding)) {
    throw suiteScriptError('INVALID_ENCODING', `${where}: ${encoding} is not an encode.Encoding value`);
  }
  // Base32 has no use in the script under test; failing loudly beats a wrong answer.
  if (encoding === Encoding.BASE_32) throw new Error(`${where}: the N/encode stand-in does not implement BASE_32`);
  return nodeNames[encoding];
}

function toBytes(string, encoding, where) {
  return Buffer.from(String(string), nodeEncoding(encoding, where));
}

function fromBytes(bytes, encoding, where) {
  const out = bytes.toString(nodeEncoding(encoding, where));
  if (encoding === Encoding.BASE_16) return out.toUpperCase();
  // The documented BASE_64_URL_SAFE keeps its '=' padding; Node's base64url drops it.
  if (encoding === Encoding.BASE_64_URL_SAFE) return out + '='.repeat((4 - (out.length % 4)) % 4);
  return out;
}

function convert(options) {
  requireOptions(options, ['inputEncoding', 'outputEncoding'], 'encode.convert');
  if (typeof options.string !== 'string') {
    throw suiteScriptError('SSS_MISSING_REQD_ARGUMENT', 'encode.convert: missing a required argument: options.string');
  }
  return fromBytes(toBytes(options.string, options.inputEncoding, 'encode.convert'), options.outputEncoding, 'encode.convert');
}

module.exports = { Encoding, convert, toBytes, fromBytes };
