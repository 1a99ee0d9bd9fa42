'use strict';
// The custom module both scripts use to find JSON numbers that JSON.parse would change,
// loaded as the scripts load it (amd.js: the real file, in a fresh context).
const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const amd = require('./amd');

const MODULE = path.resolve(__dirname, '..', 'src', 'FileCabinet', 'SuiteScripts', 'sync_error_assist', 'sea_exact_json.js');
const exactJSON = amd.load(MODULE, {});
const { isExact } = exactJSON;
// The module runs in its own context; copies into this one compare by value with
// assert's strict deep equality, which also compares prototypes.
const inexactNumbers = (text) => Array.from(exactJSON.inexactNumbers(text), (n) => Object.assign({}, n));

const tokens = (text) => inexactNumbers(text).map((n) => n.token);

// exactByBigInt is an independent oracle: the literal's value and that of
// String(Number(literal)) as rationals m * 10^e, compared exactly.
function decimal(s) {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(s);
  if (!m) return null;
  const frac = m[3] || '';
  const mant = BigInt(m[2] + frac) * (m[1] === '-' ? -1n : 1n);
  return { mant, exp: Number(m[4] || 0) - frac.length };
}
function exactByBigInt(literal) {
  const a = decimal(literal);
  const b = decimal(String(Number(literal)));
  if (!a || !b) return false;
  const e = Math.min(a.exp, b.exp);
  return a.mant * 10n ** BigInt(a.exp - e) === b.mant * 10n ** BigInt(b.exp - e);
}

describe('sea_exact_json.inexactNumbers', () => {
  test('numbers a double holds exactly are not reported', () => {
    for (const n of ['1.50', '1e2', '0.1', '129.5', '-0', '0', '0.0', '9007199254740991', '-12.340e-3', '1E+2', '5e-324', '1.7976931348623157e308', '100000000000000000000', '123456789012345680000']) {
      assert.equal(isExact(n), true, n);
      assert.deepEqual(inexactNumbers(`{"v": ${n}}`), [], n);
    }
  });

  test('numbers JSON.parse changes are reported with the digits sent and what they became', () => {
    for (const n of ['12345678901234567890', '9007199254740993', '0.12345678901234567891', '-9007199254740993', '1e400', '1e-400', '123456789012345678e-5']) {
      assert.equal(isExact(n), false, n);
      assert.deepEqual(inexactNumbers(`{"v": ${n}}`), [{ token: n, path: 'v', member: 'v', parsed: String(Number(n)) }], n);
    }
    assert.equal(inexactNumbers('{"v": 9007199254740993}')[0].parsed, '9007199254740992');
  });

  test('numbers inside strings, keys and escaped quotes are text, not numbers', () => {
    const text = '{"12345678901234567890": "12345678901234567890", "a\\\\": "x\\" 9007199254740993 \\\\", "b\\"c": ["\\u0031 0.12345678901234567891"]}';
    assert.deepEqual(JSON.parse(text)['b"c'], ['1 0.12345678901234567891'], 'the test text is valid JSON');
    assert.deepEqual(inexactNumbers(text), []);
    // After all those strings, a real number is still found and named.
    assert.deepEqual(tokens(text.replace(/}$/, ', "n": 9007199254740993}')), ['9007199254740993']);
  });

  test('nested objects and arrays: each number is named by its path and top-level member', () => {
    const text = `{
      "ref": 12345678901234567890, "qty": 2,
      "lines": [{"item": 7, "amount": 0.12345678901234567891}, 1.5, [9007199254740993]],
      "ship": {"to": {"zip": "10115", "id": 9007199254740993}, "empty": {}},
      "k\\"ey": -9007199254740993
    }`;
    assert.deepEqual(inexactNumbers(text).map(({ token, path: p, member }) => [token, p, member]), [
      ['12345678901234567890', 'ref', 'ref'],
      ['0.12345678901234567891', 'lines[0].amount', 'lines'],
      ['9007199254740993', 'lines[2][0]', 'lines'],
      ['9007199254740993', 'ship.to.id', 'ship'],
      ['-9007199254740993', 'k"ey', 'k"ey'],
    ]);
    assert.deepEqual(inexactNumbers('[1, 9007199254740993]').map((n) => [n.path, n.member]), [['[1]', null]]);
    assert.deepEqual(inexactNumbers('9007199254740993').map((n) => [n.path, n.member]), [['', null]]);
  });

  test('agrees with an exact BigInt comparison on many generated literals', () => {
    let seed = 42;
    const rand = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
    const digits = (n) => Array.from({ length: n }, () => String(rand(10))).join('');
    let inexact = 0;
    for (let i = 0; i < 3000; i++) {
      let lit = (rand(4) === 0 ? '-' : '') + String(1 + rand(9)) + digits(rand(24));
      if (rand(2)) lit += `.${digits(1 + rand(22))}`;
      if (rand(3) === 0) lit += `e${rand(2) ? '-' : ''}${rand(30)}`;
      const want = exactByBigInt(lit);
      if (!want) inexact++;
      assert.equal(isExact(lit), want, lit);
      assert.equal(tokens(`{"x":[${lit}]}`).length, want ? 0 : 1, lit);
    }
    assert.ok(inexact > 500 && inexact < 2900, `both kinds generated (${inexact} inexact)`);
  });

  test('text JSON.parse rejects does not throw', () => {
    for (const t of ['', '{', '"unterminated 9007199254740993', '{"a": 01, "b": 1.}', 'NaN', '{"a": 9007199254740993']) {
      assert.doesNotThrow(() => inexactNumbers(t), t);
    }
  });
});
