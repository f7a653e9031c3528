// A raw CDP WebSocket client for the CDP front end's end-to-end tests: it
// sends exactly the messages it is given, so a test can try what no
// library would send (methods outside the session's scope, other targets).
//
//   node tests/cdp/raw.mjs
//
// Environment:
// - WEBRIG_CDP_CLIENTS: the folder whose node_modules holds puppeteer-core
//   (installed by `cargo xtask test` into target/cdp-clients); its
//   dependency `ws` is the client (Node 20's global WebSocket is still
//   experimental and sends no headers);
// - CDP_URL: a ws:// endpoint;
// - CDP_TOKEN (optional): sent as `Authorization: Bearer <token>`;
// - CDP_PROTOCOLS (optional): a comma list of subprotocols to offer;
// - CDP_SEND: a JSON array of messages `{id, method, params, sessionId?}`,
//   sent one at a time, each after the answer to the one before (10 s
//   each; one not answered in time is recorded as `{id, timeout: true}`).
//
// Prints one JSON line and exits 0:
// - `{"opened": true, "protocol", "answers": [...], "events": [first 200],
//   "closed"?: {code, reason}}` (closed: the server closed the socket
//   before every answer came);
// - `{"opened": false, "status": <HTTP status or null>, "error"}` when the
//   upgrade was refused. Anything else (bad input) exits 1.
import { createRequire } from 'node:module';
import path from 'node:path';

const ANSWER_MS = 10_000;
const MAX_EVENTS = 200;

function env(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

function print(value) {
  process.stdout.write(JSON.stringify(value) + '\n');
}

const clients = env('WEBRIG_CDP_CLIENTS');
const require = createRequire(path.join(clients, 'node_modules', 'puppeteer-core', 'package.json'));
const WebSocket = require('ws');
const url = env('CDP_URL');
const send = JSON.parse(env('CDP_SEND'));
if (!Array.isArray(send)) throw new Error('CDP_SEND must be a JSON array');
const token = process.env.CDP_TOKEN;
const protocols = (process.env.CDP_PROTOCOLS ?? '')
  .split(',')
  .map((p) => p.trim())
  .filter(Boolean);

const ws = new WebSocket(url, protocols, {
  headers: token ? { Authorization: `Bearer ${token}` } : {},
  handshakeTimeout: ANSWER_MS,
  perMessageDeflate: false,
});

const answers = [];
const events = [];
const waiting = new Map();
let closed;

// A refused upgrade: its status and the body the server gave with it.
ws.on('unexpected-response', (_req, res) => {
  let body = '';
  res.setEncoding('utf8');
  res.on('data', (chunk) => {
    if (body.length < 4096) body += chunk;
  });
  res.on('end', () => {
    print({ opened: false, status: res.statusCode, error: body.trim() || res.statusMessage });
    process.exit(0);
  });
});

const open = new Promise((resolve) => {
  ws.once('open', resolve);
  ws.once('error', (error) => {
    // Before the upgrade (refused connection, no subprotocol agreed...).
    if (ws.readyState !== WebSocket.OPEN) {
      print({ opened: false, status: null, error: String(error?.message ?? error) });
      process.exit(0);
    }
  });
});

ws.on('message', (data) => {
  let message;
  try {
    message = JSON.parse(data.toString());
  } catch {
    message = { unparsed: data.toString().slice(0, 1000) };
  }
  const done = message.id !== undefined && waiting.get(message.id);
  if (done) {
    waiting.delete(message.id);
    done(message);
  } else if (message.id !== undefined) {
    answers.push({ unexpected: message });
  } else if (events.length < MAX_EVENTS) {
    events.push(message);
  }
});

ws.on('close', (code, reason) => {
  closed = { code, reason: reason.toString() };
  for (const [id, done] of waiting) done({ id, closed: true });
  waiting.clear();
});

await open;
for (const message of send) {
  if (closed) break;
  const answer = await new Promise((resolve) => {
    const timer = setTimeout(() => {
      waiting.delete(message.id);
      resolve({ id: message.id, timeout: true });
    }, ANSWER_MS);
    waiting.set(message.id, (a) => {
      clearTimeout(timer);
      resolve(a);
    });
    ws.send(JSON.stringify(message));
  });
  if (answer.closed) break;
  answers.push(answer);
}
const result = { opened: true, protocol: ws.protocol, answers, events };
if (closed) result.closed = closed;
print(result);
ws.terminate();
process.exit(0);
