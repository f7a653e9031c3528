// `page.evaluate('1')` round trips over two CDP endpoints of the same
// browser, for `cargo xtask bench cdp`: A is the browser's own endpoint,
// B webrig's CDP front end for a session of that browser (the target: B
// within 1.3× of A, in one run).
//
// Environment:
// - WEBRIG_CDP_CLIENTS: the folder whose node_modules holds playwright-core;
// - CDP_A, CDP_B: ws:// (or http:// discovery) endpoints;
// - CDP_TOKEN_B (optional): sent to B as `Authorization: Bearer <token>`;
// - BENCH_RUNS (default 500 per side), BENCH_BLOCK (default 50),
//   BENCH_WARM_UP (default 50 per side).
//
// Both sides connect first, then warm up, then measure in alternating
// blocks (A B, B A, A B, ...) so that drift (other load, the browser's own
// state) falls on both alike. Both evaluate in the same tab when A can see
// the one B uses (B, scoped to a session, sees fewer). Prints one JSON
// line: `{"a": {n, p50, p95, mean}, "b": {...}, "ratio_p50", "ratio_mean"}`
// (milliseconds); on an error or past 120 s, `{"ok": false, "stage",
// "error"}` and exit 1.
import { createRequire } from 'node:module';
import path from 'node:path';

const TIMEOUT_MS = 120_000;
let stage = 'setup';

function fail(error) {
  const message = String(error?.message ?? error).replace(/\u001b\[[0-9;]*m/g, '');
  process.stdout.write(JSON.stringify({ ok: false, stage, error: message }) + '\n');
  process.exit(1);
}

setTimeout(() => fail(new Error(`timed out after ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS);

function env(name, fallback) {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
}

async function firstPage(browser) {
  const context = browser.contexts()[0] ?? (await browser.newContext());
  return context.pages()[0] ?? (await context.newPage());
}

function stats(samples) {
  const sorted = [...samples].sort((x, y) => x - y);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((sorted.length * p) / 100) - 1))];
  const mean = sorted.reduce((s, x) => s + x, 0) / sorted.length;
  const round = (x) => Math.round(x * 1000) / 1000;
  return { n: sorted.length, p50: round(at(50)), p95: round(at(95)), mean: round(mean) };
}

async function main() {
  const require = createRequire(path.join(env('WEBRIG_CDP_CLIENTS'), 'package.json'));
  const { chromium } = require('playwright-core');
  const runs = Number(env('BENCH_RUNS', '500'));
  const block = Number(env('BENCH_BLOCK', '50'));
  const warmUp = Number(env('BENCH_WARM_UP', '50'));
  const token = process.env.CDP_TOKEN_B;

  stage = 'connect A';
  const a = await chromium.connectOverCDP(env('CDP_A'));
  stage = 'connect B';
  const b = await chromium.connectOverCDP(env('CDP_B'), {
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
  stage = 'pages';
  const pageB = await firstPage(b);
  const pageA =
    a.contexts().flatMap((c) => c.pages()).find((p) => p.url() === pageB.url()) ?? (await firstPage(a));

  const sides = [
    { name: 'A', page: pageA, samples: [] },
    { name: 'B', page: pageB, samples: [] },
  ];
  for (const side of sides) {
    stage = `warm-up ${side.name}`;
    for (let i = 0; i < warmUp; i++) await side.page.evaluate('1');
  }
  for (let done = 0; done < runs; done += block) {
    // A B, then B A: the side that runs first after a switch may pay for
    // it, so each goes first as often.
    const order = (done / block) % 2 ? [...sides].reverse() : sides;
    for (const side of order) {
      stage = `measure ${side.name}`;
      for (let i = 0; i < Math.min(block, runs - done); i++) {
        const started = process.hrtime.bigint();
        await side.page.evaluate('1');
        side.samples.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    }
  }
  // connectOverCDP browsers: close() disconnects, the browser stays.
  stage = 'disconnect';
  await a.close();
  await b.close();
  const [sa, sb] = sides.map((s) => stats(s.samples));
  const ratio = (x, y) => Math.round((x / y) * 100) / 100;
  const out = { a: sa, b: sb, ratio_p50: ratio(sb.p50, sa.p50), ratio_mean: ratio(sb.mean, sa.mean) };
  process.stdout.write(JSON.stringify(out) + '\n');
  process.exit(0);
}

main().catch(fail);
