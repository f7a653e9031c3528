// `cargo xtask bench annotate`: a person's side of `webrig annotate`, timed.
// Playwright (connected to the session through webrig's CDP front end)
// gives trusted mouse and keyboard input, as a hand would; the CLI runs
// `webrig annotate` as an agent would.
//
// Environment: WEBRIG_CDP_CLIENTS (playwright-core), CDP_URL (the session's
// front end), WEBRIG_BIN, SESSION, PICKS (elements per send, default 5),
// RUNS (default 10). WEBRIG_HOME and WEBRIG_PORT pass to the CLI.
//
// Per run: `open` = from starting the CLI to the overlay covering the page
// (CLI process start included); `send` = from the Enter key to the CLI's
// exit with the payload (the daemon noticing, refs, candidates, screenshot,
// redaction, the inbox write, the answer, process exit). Prints one JSON
// line: {ok, open: {p50, p95}, send: {p50, p95}, bytes, items}.
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import path from 'node:path';

const TIMEOUT_MS = 300_000;
let stage = 'setup';
function fail(error) {
  process.stdout.write(JSON.stringify({ ok: false, stage, error: String(error?.message ?? error) }) + '\n');
  process.exit(1);
}
setTimeout(() => fail(new Error(`timed out after ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS);

function stats(samples) {
  const sorted = [...samples].sort((x, y) => x - y);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((sorted.length * p) / 100) - 1))];
  const round = (x) => Math.round(x * 10) / 10;
  return { n: sorted.length, p50: round(at(50)), p95: round(at(95)) };
}

function annotate() {
  const child = spawn(process.env.WEBRIG_BIN, ['--json', '--session', process.env.SESSION, 'annotate', '--timeout', '60s'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const done = new Promise((resolve) => child.on('exit', () => resolve(out)));
  return done;
}

async function main() {
  const require = createRequire(path.join(process.env.WEBRIG_CDP_CLIENTS, 'package.json'));
  const { chromium } = require('playwright-core');
  const picks = Number(process.env.PICKS ?? '5');
  const runs = Number(process.env.RUNS ?? '10');
  stage = 'connect';
  const browser = await chromium.connectOverCDP(process.env.CDP_URL);
  const context = browser.contexts()[0];
  const page = context.pages()[0];
  stage = 'choose elements';
  // The first `picks` visible elements of some size in the viewport, in
  // reading order, their centers. (Marked, so the page's own check below
  // finds them again.)
  const targets = await page.evaluate((n) => {
    const out = [];
    for (const el of document.querySelectorAll('a, button, h1, h2, h3, p, img, li, input')) {
      const r = el.getBoundingClientRect();
      if (r.width < 24 || r.height < 12 || r.top < 30 || r.bottom > innerHeight - 20) continue;
      const x = r.left + r.width / 2, y = r.top + r.height / 2;
      // Not under the overlay's panel (bottom right).
      if (x > innerWidth - 370 && y > innerHeight * 0.35) continue;
      if (document.elementFromPoint(x, y) !== el) continue;
      if (out.some((o) => Math.abs(o.y - y) < 8 && Math.abs(o.x - x) < 8)) continue;
      if (!out.length) window.__benchFirst = el;
      out.push({ x, y });
      if (out.length === n) break;
    }
    return out;
  }, picks);
  if (targets.length < picks) throw new Error(`only ${targets.length} elements to pick on this page`);
  const covered = () => page.evaluate(({ x, y }) => document.elementFromPoint(x, y) !== window.__benchFirst, targets[0]);
  const opens = [];
  const sends = [];
  let bytes = 0;
  let items = 0;
  for (let i = 0; i < runs; i++) {
    stage = `run ${i}: open`;
    const t0 = performance.now();
    const done = annotate();
    while (!(await covered())) await new Promise((r) => setTimeout(r, 5));
    opens.push(performance.now() - t0);
    stage = `run ${i}: pick`;
    for (const [k, t] of targets.entries()) {
      await page.mouse.click(t.x, t.y);
      await page.keyboard.type(`note ${k} of run ${i}`);
    }
    stage = `run ${i}: send`;
    const t1 = performance.now();
    await page.keyboard.press('Enter');
    const out = await done;
    sends.push(performance.now() - t1);
    const v = JSON.parse(out);
    if (!v.ok || v.result.status !== 'sent') throw new Error(`annotate answered ${out.slice(0, 300)}`);
    items = v.result.annotation.items.length;
    bytes = JSON.stringify(v.result.annotation).length;
    if (items !== picks) throw new Error(`${items} items sent, ${picks} picked`);
    while (await covered()) await new Promise((r) => setTimeout(r, 5));
  }
  process.stdout.write(JSON.stringify({ ok: true, open: stats(opens), send: stats(sends), bytes, items }) + '\n');
  process.exit(0);
}

main().catch(fail);
