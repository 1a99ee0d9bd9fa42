'use strict';
// Loaded before dynalite (node --require). dynalite throws from each request's 'error'
// listener (index.js: req.on('error', function (err) { throw err })), so a client that
// closes its connection before the body is read ("aborted", ECONNRESET) kills the whole
// emulator: a Go context cancelled mid-call does that, as when a browser leaves a page and
// the local stack's handler stops. That request is gone either way; the emulator need not
// be. Any other uncaught error still ends the process, as it would without this file.
process.on('uncaughtException', (err) => {
  if (err && err.code === 'ECONNRESET' && err.message === 'aborted') {
    process.stderr.write('dynalite: a client aborted its request; carrying on\n');
    return;
  }
  process.stderr.write((err && err.stack) || String(err));
  process.stderr.write('\n');
  process.exit(1);
});
