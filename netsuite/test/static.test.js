'use strict';
// Checks that need no NetSuite account: each script parses, is a SuiteScript 2.1 script of
// its type, loads only documented server-side N/* modules and this folder's custom modules,
// keeps to ES2019 syntax, and agrees with the SDF objects that deploy it (field and parameter
// ids, file path, record type). Each custom module passes the same language checks and is
// uploaded with the scripts.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const esbuild = require('esbuild');
const amd = require('./amd');

const project = path.resolve(__dirname, '..', 'src');
const SCRIPT_PATH = '/SuiteScripts/sync_error_assist/sea_sync_error_ue.js';
const script = path.join(project, 'FileCabinet', SCRIPT_PATH);
const source = fs.readFileSync(script, 'utf8');
const RETRY_PATH = '/SuiteScripts/sync_error_assist/sea_sync_error_retry_ss.js';
const retryScript = path.join(project, 'FileCabinet', RETRY_PATH);
const retrySource = fs.readFileSync(retryScript, 'utf8');
const objects = path.join(project, 'Objects');
const recordXML = fs.readFileSync(path.join(objects, 'customrecord_sea_sync_error.xml'), 'utf8');
const scriptXML = fs.readFileSync(path.join(objects, 'customscript_sea_sync_error_ue.xml'), 'utf8');
const retryXML = fs.readFileSync(path.join(objects, 'customscript_sea_sync_error_retry_ss.xml'), 'utf8');
const SCRIPTS = [
  { name: 'the user-event script', file: script, source, type: 'UserEventScript' },
  { name: 'the retry script', file: retryScript, source: retrySource, type: 'ScheduledScript' },
];
// Custom modules the scripts load by a relative id ("./sea_exact_json"), which NetSuite
// resolves from the loading script's folder ("Module Dependency Paths",
// docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_4430268304.html).
const EXACT_JSON_PATH = '/SuiteScripts/sync_error_assist/sea_exact_json.js';
const MODULES = [EXACT_JSON_PATH].map((p) => {
  const file = path.join(project, 'FileCabinet', p);
  return { name: `the custom module ${path.basename(p)}`, path: p, file, source: fs.readFileSync(file, 'utf8') };
});

// "SuiteScript 2.x Modules" (docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/chapter_4220488571.html).
const DOCUMENTED_MODULES = [
  'N/action', 'N/auth', 'N/cache', 'N/certificateControl', 'N/compress', 'N/config', 'N/crypto',
  'N/crypto/certificate', 'N/crypto/random', 'N/currency', 'N/currentRecord', 'N/dataset', 'N/datasetLink',
  'N/email', 'N/encode', 'N/error', 'N/file', 'N/format', 'N/format/i18n', 'N/http', 'N/https',
  'N/https/clientCertificate', 'N/keyControl', 'N/llm', 'N/log', 'N/pgp', 'N/piremoval', 'N/plugin',
  'N/portlet', 'N/query', 'N/record', 'N/recordContext', 'N/redirect', 'N/render', 'N/runtime', 'N/search',
  'N/sftp', 'N/sso', 'N/suiteAppInfo', 'N/task', 'N/task/accounting/recognition', 'N/transaction',
  'N/translation', 'N/ui/dialog', 'N/ui/message', 'N/ui/serverWidget', 'N/url', 'N/util', 'N/workbook',
  'N/workflow', 'N/xml',
];
// Documented for client scripts only; a user event script runs on the server.
const CLIENT_ONLY = ['N/currentRecord', 'N/ui/dialog', 'N/ui/message'];

const idsIn = (text, re) => [...new Set([...text.matchAll(re)].map((m) => m[1]))].sort();

for (const sc of SCRIPTS) {
  test(`${sc.name} parses as JavaScript`, () => {
    execFileSync(process.execPath, ['--check', sc.file], { stdio: 'pipe' });
  });

  test(`${sc.name} declares itself a SuiteScript 2.1 ${sc.type}`, () => {
    const header = sc.source.slice(0, sc.source.indexOf('define('));
    assert.match(header, /@NApiVersion 2\.1\b/);
    assert.match(header, new RegExp(`@NScriptType ${sc.type}\\b`));
  });

  test(`${sc.name} loads only documented server-side N/* modules and its folder's custom modules`, () => {
    const deps = amd.dependencies(sc.file);
    assert.ok(deps.length > 0);
    checkDependencies(sc.file, deps);
  });
}

// checkDependencies: documented server-side N/* modules, or a sibling custom module of
// MODULES named without its extension, as NetSuite's paths are.
function checkDependencies(file, deps) {
  for (const id of deps) {
    if (amd.isRelative(id)) {
      assert.match(id, /^\.\/[a-z0-9_]+$/, `${id}: a custom module here is a sibling, named without .js`);
      const target = amd.resolve(file, id);
      assert.ok(MODULES.some((m) => m.file === target), `${id} is not a custom module of this folder`);
      continue;
    }
    assert.ok(DOCUMENTED_MODULES.includes(id), `${id} is not a documented SuiteScript 2.x module`);
    assert.ok(!CLIENT_ONLY.includes(id), `${id} is for client scripts only`);
  }
}

for (const m of MODULES) {
  test(`${m.name} parses as JavaScript`, () => {
    execFileSync(process.execPath, ['--check', m.file], { stdio: 'pipe' });
  });

  test(`${m.name} is a SuiteScript 2.1 custom module, not an entry point script`, () => {
    const header = m.source.slice(0, m.source.indexOf('define('));
    assert.match(header, /@NApiVersion 2\.1\b/);
    assert.doesNotMatch(header, /@NScriptType/);
    checkDependencies(m.file, amd.dependencies(m.file));
  });

  test(`${m.name} is uploaded with the scripts`, () => {
    const deployXML = fs.readFileSync(path.join(project, 'deploy.xml'), 'utf8');
    const dirs = idsIn(deployXML, /<path>~\/FileCabinet(\/[^<*]*)\*<\/path>/g);
    assert.ok(dirs.some((d) => m.path.startsWith(d)), `deploy.xml does not upload ${m.path}`);
  });
}

for (const sc of [...SCRIPTS, ...MODULES]) {
  test(`${sc.name} keeps to ES2019 syntax`, () => {
    // Lowering to ES2019 changes only code that uses later syntax (?., ??, #private, ...).
    const as = (target) => esbuild.transformSync(sc.source, { loader: 'js', target }).code;
    assert.equal(as('es2019'), as('esnext'), 'the script uses syntax newer than ES2019');
  });
}

test('the scripts read exactly the custom record fields the SDF object defines', () => {
  const defined = idsIn(recordXML, /<customrecordcustomfield scriptid="(custrecord_[a-z0-9_]+)"/g);
  const posted = idsIn(source, /'(custrecord_[a-z0-9_]+)'/g);
  const retried = idsIn(retrySource, /'(custrecord_[a-z0-9_]+)'/g);
  // The service writes custrecord_sea_retry_requested_at; no script needs to read it.
  assert.deepEqual([...new Set([...posted, ...retried, 'custrecord_sea_retry_requested_at'])].sort(), defined);
  assert.deepEqual(retried.filter((f) => f.startsWith('custrecord_sea_retry_')), [
    'custrecord_sea_retry_fix', 'custrecord_sea_retry_requested', 'custrecord_sea_retry_result', 'custrecord_sea_retry_status',
  ]);
  assert.deepEqual(posted, [
    'custrecord_sea_direction', 'custrecord_sea_error_code', 'custrecord_sea_error_id',
    'custrecord_sea_external_system', 'custrecord_sea_message', 'custrecord_sea_occurred_at',
    'custrecord_sea_payload', 'custrecord_sea_record_id', 'custrecord_sea_record_type',
  ]);
});

test('the script reads exactly the parameters its script object defines', () => {
  const defined = idsIn(scriptXML, /<scriptcustomfield scriptid="(custscript_[a-z0-9_]+)"/g);
  assert.deepEqual(idsIn(source, /'(custscript_[a-z0-9_]+)'/g), defined);
  assert.deepEqual(defined, ['custscript_sea_ingest_url', 'custscript_sea_secret_id', 'custscript_sea_tenant_id']);
});

test('the SDF objects deploy this file on the custom record', () => {
  assert.ok(scriptXML.includes(`<scriptfile>[${SCRIPT_PATH}]</scriptfile>`));
  assert.ok(retryXML.includes(`<scriptfile>[${RETRY_PATH}]</scriptfile>`));
  assert.match(retryXML, /<status>SCHEDULED<\/status>/);
  assert.match(scriptXML, /<recordtype>\[scriptid=customrecord_sea_sync_error\]<\/recordtype>/);
  assert.match(scriptXML, /<status>RELEASED<\/status>/);
  // SDF requires an object's file to be named after its script ID.
  for (const file of fs.readdirSync(objects)) {
    const xml = fs.readFileSync(path.join(objects, file), 'utf8');
    assert.match(xml, new RegExp(`^<\\w+ scriptid="${file.replace(/\.xml$/, '')}"`), file);
  }
  const deployXML = fs.readFileSync(path.join(project, 'deploy.xml'), 'utf8');
  const dirs = idsIn(deployXML, /<path>~\/FileCabinet(\/[^<*]*)\*<\/path>/g);
  assert.ok(dirs.some((d) => SCRIPT_PATH.startsWith(d)), 'deploy.xml does not upload the script');
  assert.ok(dirs.some((d) => RETRY_PATH.startsWith(d)), 'deploy.xml does not upload the retry script');
  assert.match(fs.readFileSync(path.join(project, 'manifest.xml'), 'utf8'), /projecttype="ACCOUNTCUSTOMIZATION"/);
});
