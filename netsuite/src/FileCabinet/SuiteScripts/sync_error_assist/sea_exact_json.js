/**
 * @NApiVersion 2.1
 * @NModuleScope SameAccount
 *
 * Finds the numbers in a JSON text that JSON.parse would change. JSON.parse turns every
 * number into an IEEE double, which keeps about 17 significant digits: an id or amount
 * such as 12345678901234567890 or 0.12345678901234567891 comes back with other digits,
 * and a script that writes the parsed value (or posts it on) would write digits nobody
 * sent. The scripts of this folder load the module as "./sea_exact_json": "Module
 * Dependency Paths" (docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_4430268304.html)
 * resolves a path starting with "." from the dependent module's folder, without the file
 * extension; "SuiteScript 2.x Custom Modules" (.../chapter_4704097697.html) has custom
 * modules created with define, as this one is.
 */
define([], () => {
  const NUMBER = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;
  // What String(Number(x)) prints: JSON's grammar plus "e+21", and never a JSON number for
  // values a double cannot hold (Infinity), which the caller then counts as changed.
  const PRINTED = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:e([+-]?[0-9]+))?$/;

  // canonical writes a decimal as sign, significant digits and exponent, so that two
  // spellings of one value ("1.50", "15e-1") compare equal as text. Zero has no sign
  // here: -0 and 0 are the same value to every field a script writes.
  function canonical(literal, grammar) {
    const m = grammar.exec(literal);
    if (m === null) return null;
    const fraction = m[3] || '';
    let digits = (m[2] + fraction).replace(/^0+/, '');
    if (digits === '') return '0';
    let exponent = Number(m[4] || '0') - fraction.length;
    const trailing = /0*$/.exec(digits)[0].length;
    digits = digits.slice(0, digits.length - trailing);
    exponent += trailing;
    return `${m[1]}${digits}e${exponent}`;
  }

  /** isExact says whether JSON.parse keeps the value of the JSON number literal. */
  function isExact(literal) {
    const wanted = canonical(literal, NUMBER);
    return wanted !== null && wanted === canonical(String(Number(literal)), PRINTED);
  }

  function pathOf(frames) {
    let out = '';
    for (let i = 0; i < frames.length; i++) {
      const f = frames[i];
      if (f.object) {
        if (f.key === null) continue;
        out += out === '' ? f.key : `.${f.key}`;
      } else {
        out += `[${f.index}]`;
      }
    }
    return out;
  }

  function stringEnd(text, start) {
    let i = start + 1;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x5c) i += 2; // a backslash: the next character is escaped, a quote too
      else if (c === 0x22) return i + 1;
      else i++;
    }
    return text.length;
  }

  /**
   * inexactNumbers returns the number literals of a JSON text whose value JSON.parse would
   * change, in text order: {token, path, member, parsed}. path names where the number is
   * ("ref", "lines[0].amount"; "" for a bare number), member the top-level member it is in
   * ("lines"; null outside a top-level object), parsed what JSON.parse makes of it. Numbers inside strings are text and kept as they are, so they are skipped.
   * It reads text JSON.parse accepts (callers parse first); of other text it reports what
   * it can, and never throws.
   */
  function inexactNumbers(text) {
    const source = String(text);
    const found = [];
    const frames = [];
    let i = 0;
    while (i < source.length) {
      const c = source[i];
      const top = frames[frames.length - 1];
      if (c === '"') {
        const end = stringEnd(source, i);
        if (top && top.object && top.expectKey) {
          const literal = source.slice(i, end);
          try {
            top.key = JSON.parse(literal);
          } catch (e) {
            top.key = literal;
          }
          top.expectKey = false;
        }
        i = end;
      } else if (c === '{') {
        frames.push({ object: true, key: null, expectKey: true });
        i++;
      } else if (c === '[') {
        frames.push({ object: false, index: 0 });
        i++;
      } else if (c === '}' || c === ']') {
        frames.pop();
        i++;
      } else if (c === ',') {
        if (top && top.object) top.expectKey = true;
        else if (top) top.index++;
        i++;
      } else if (c === '-' || (c >= '0' && c <= '9')) {
        let end = i + 1;
        while (end < source.length && /[0-9.eE+-]/.test(source[end])) end++;
        const token = source.slice(i, end);
        if (NUMBER.test(token) && !isExact(token)) {
          const member = frames.length > 0 && frames[0].object ? frames[0].key : null;
          found.push({ token, path: pathOf(frames), member, parsed: String(Number(token)) });
        }
        i = end;
      } else {
        i++;
      }
    }
    return found;
  }

  return { inexactNumbers, isExact };
});
