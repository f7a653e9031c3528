// Tries host/src/plugins/design_tokens.js outside the host: serves a folder
// of pages on 127.0.0.1, opens each in headless Chromium over CDP and prints
// what the script returns (and saves a viewport PNG in the temp folder).
// With TOKENS_OUT=dir it also writes <page>.json there (the testdata).
//
//   node --experimental-websocket tools/try-tokens.mjs \
//        ../../../tests/fixtures/web/small/design calm.html brutal.html neon.html
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { join, dirname, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const script = readFileSync(resolve(here, '../../../../host/src/plugins/design_tokens.js'), 'utf8');
const [folder, ...pages] = process.argv.slice(2);
const chromium = process.env.CHROMIUM || '/usr/lib/chromium/chromium';

const server = createServer((req, res) => {
  const path = join(folder, decodeURIComponent(new URL(req.url, 'http://x').pathname));
  if (!existsSync(path)) { res.writeHead(404); res.end(); return; }
  const type = path.endsWith('.css') ? 'text/css' : 'text/html; charset=utf-8';
  res.writeHead(200, { 'content-type': type });
  res.end(readFileSync(path));
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const origin = `http://127.0.0.1:${server.address().port}`;

const profile = mkdtempSync(join(tmpdir(), 'try-tokens-'));
const browser = spawn(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--remote-debugging-port=0',
  `--user-data-dir=${profile}`, '--window-size=1280,800', 'about:blank'], { stdio: 'ignore' });
let port;
for (let i = 0; i < 100 && !port; i++) {
  await new Promise((ok) => setTimeout(ok, 100));
  const f = join(profile, 'DevToolsActivePort');
  if (existsSync(f)) port = readFileSync(f, 'utf8').split('\n')[0];
}
if (!port) throw new Error('chromium did not start');
const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
const ws = new WebSocket(targets.find((t) => t.type === 'page').webSocketDebuggerUrl);
await new Promise((ok) => ws.addEventListener('open', ok));
let id = 0;
const waiting = new Map();
const events = [];
ws.addEventListener('message', (m) => {
  const msg = JSON.parse(m.data);
  if (msg.id && waiting.has(msg.id)) { waiting.get(msg.id)(msg); waiting.delete(msg.id); }
  else events.push(msg.method);
});
const call = (method, params = {}) => new Promise((ok) => { const n = ++id; waiting.set(n, ok); ws.send(JSON.stringify({ id: n, method, params })); });

process.on('exit', () => browser.kill());
await call('Page.enable');
await call('Emulation.setDeviceMetricsOverride', { width: 1280, height: 800, deviceScaleFactor: 1, mobile: false });
for (const page of pages) {
  events.length = 0;
  await call('Page.navigate', { url: `${origin}/${page}` });
  for (let i = 0; i < 100 && !events.includes('Page.loadEventFired'); i++) await new Promise((ok) => setTimeout(ok, 50));
  const t0 = performance.now();
  const reply = await call('Runtime.evaluate', { expression: script, returnByValue: true, awaitPromise: true });
  const ms = (performance.now() - t0).toFixed(1);
  if (reply.result.exceptionDetails) { console.log(page, 'EXCEPTION', JSON.stringify(reply.result.exceptionDetails)); continue; }
  console.log(`== ${page} (${ms} ms)`);
  console.log(JSON.stringify(reply.result.result.value));
  if (process.env.TOKENS_OUT) {
    writeFileSync(join(process.env.TOKENS_OUT, page.replaceAll('/', '_').replace(/\.html$/, '') + '.json'), JSON.stringify(reply.result.result.value, null, 1) + '\n');
  }
  const shot = await call('Page.captureScreenshot', { format: 'png' });
  writeFileSync(join(tmpdir(), `try-tokens-${page.replaceAll('/', '_')}.png`), Buffer.from(shot.result.data, 'base64'));
}
const exited = new Promise((ok) => browser.on('exit', ok));
browser.kill();
await exited;
ws.close();
server.close();
rmSync(profile, { recursive: true, force: true });
