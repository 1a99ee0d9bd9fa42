'use strict';
// Builds and starts the local stack (emulators, demo tenant, ingest, operator API, dev issuer)
// on a free port with its own state dir, in its own process group, as the browser tests'
// global setup does; stop() kills the whole group, emulators included.
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const binary = path.join(root, 'build', 'netsuite-test', 'local-stack');

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

// baseURL waits for the address the stack bound and wrote to its state dir: PORT=0 lets
// the system pick a port the stack holds from its first moment. A port picked here and
// bound by the stack seconds later could be taken in between by another process.
async function baseURL(state, ms, exited) {
  const until = Date.now() + ms;
  while (Date.now() < until && !exited()) {
    try {
      const url = fs.readFileSync(path.join(state, 'base-url'), 'utf8');
      if (url) return url;
    } catch (e) {
      // not bound yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the local stack wrote no base-url to ${state}`);
}

async function waitFor(url, ms, exited) {
  const until = Date.now() + ms;
  while (Date.now() < until && !exited()) {
    try {
      if ((await fetch(url)).ok) return;
    } catch (e) {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the local stack did not answer ${url}`);
}

/**
 * start builds ./infra/local and runs it with the demo tenant's ingest secret fixed to
 * webhookSecret. The returned stop() is safe to call more than once.
 */
async function start({ webhookSecret }) {
  execFileSync('go', ['build', '-o', binary, './infra/local'], { cwd: root, stdio: 'inherit' });
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'syncassist-netsuite-'));
  const logPath = path.join(state, 'stack.log');
  const logFd = fs.openSync(logPath, 'a');
  const child = spawn(binary, [], {
    cwd: root,
    detached: true, // its own process group, so stop() reaches the emulators too
    stdio: ['ignore', logFd, logFd],
    env: Object.assign({}, process.env, {
      PORT: '0', LOCAL_STATE_DIR: state, DEMO_WEBHOOK_SECRET: webhookSecret,
      RECONCILE_INTERVAL: '1h', LOCAL_VISIBILITY_TIMEOUT_SECONDS: '5',
    }),
  });
  fs.closeSync(logFd);
  let exited = false;
  const gone = new Promise((resolve) => child.on('exit', () => { exited = true; resolve(); }));

  const signal = (sig) => {
    try {
      process.kill(-child.pid, sig);
    } catch (e) {
      // the group is gone already
    }
  };
  const stopNow = () => signal('SIGKILL');
  // An interrupted run skips the after hooks, and Node's default SIGINT/SIGTERM end the
  // process without an 'exit' event: both would leave the stack running.
  const interrupted = (sig) => {
    stopNow();
    process.exit(sig === 'SIGINT' ? 130 : 143);
  };
  process.on('exit', stopNow);
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  let stopped = false;
  async function stop() {
    if (stopped) return;
    stopped = true;
    signal('SIGTERM');
    await Promise.race([gone, new Promise((r) => setTimeout(r, 3000))]);
    // The emulators may outlive the stack's own exit by a moment; nothing of the group stays.
    signal('SIGKILL');
    process.removeListener('exit', stopNow);
    process.removeListener('SIGINT', interrupted);
    process.removeListener('SIGTERM', interrupted);
    fs.rmSync(state, { recursive: true, force: true });
  }

  let base = '';
  try {
    base = await baseURL(state, 60000, () => exited);
    await waitFor(`${base}/local/ready`, 60000, () => exited);
  } catch (e) {
    const tail = fs.existsSync(logPath) ? fs.readFileSync(logPath, 'utf8').slice(-4000) : '';
    await stop();
    throw new Error(`${e.message}\n${tail}`);
  }

  /** token mints a development JWT for role on the demo tenant, as `make token` does. */
  function token(role) {
    return execFileSync(binary, ['token', '-role', role, '-tenant', 'demo'], {
      cwd: root, env: Object.assign({}, process.env, { LOCAL_STATE_DIR: state }), encoding: 'utf8',
    }).trim();
  }

  return { base, token, stop };
}

module.exports = { start, freePort };
