// Drives a browser over CDP with a real client, Playwright or Puppeteer
// (installed by `cargo xtask test` into target/cdp-clients), for the CDP
// front end's end-to-end tests:
//
//   node tests/cdp/drive.mjs <playwright|puppeteer>
//
// Environment:
// - WEBRIG_CDP_CLIENTS: the folder whose node_modules holds
//   playwright-core and puppeteer-core;
// - CDP_URL: a ws:// browser endpoint, or an http:// base for discovery;
// - CDP_TOKEN (optional): sent as `Authorization: Bearer <token>`;
// - PAGE_FORM: the URL of tests/fixtures/web/cdp/form.html on a loopback server;
// - STEPS (optional): a comma list of the steps below, all by default.
//
// Prints exactly one JSON line, `{"lib", "ok": true, "steps": {...}}`, or
// `{"lib", "ok": false, "step", "error"}` and exits 1. It disconnects
// without closing the browser: the browser belongs to whoever started it.
//
// Discovery differs between the two clients, and a front end must serve
// both: Playwright fetches `<CDP_URL>/json/version/` (path kept, trailing
// slash, with the headers); Puppeteer's `browserURL` fetches `/json/version`
// at the root of the host (a path in CDP_URL is dropped) and sends no
// headers, neither there nor on the WebSocket it then opens.
import { createRequire } from 'node:module';
import path from 'node:path';

const ALL = ['pages', 'goto', 'fill', 'click', 'evaluate', 'screenshot', 'newpage', 'cookies', 'close'];
const TIMEOUT_MS = 60_000;
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

const lib = process.argv[2];
let step = 'setup';

function fail(error) {
  // Puppeteer rejects a refused upgrade with ws's ErrorEvent, not an Error;
  // Playwright colours its call log.
  const message = String(error?.message ?? error).replace(/\u001b\[[0-9;]*m/g, '');
  process.stdout.write(JSON.stringify({ lib, ok: false, step, error: message }) + '\n');
  process.exit(1);
}

setTimeout(() => fail(new Error(`timed out after ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS);

function env(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

// The same steps over either library: each method is one library call.
const drivers = {
  playwright: (require) => {
    const { chromium } = require('playwright-core');
    return {
      async connect(url, headers) {
        const browser = await chromium.connectOverCDP(url, { headers, timeout: TIMEOUT_MS });
        const context = browser.contexts()[0] ?? (await browser.newContext());
        return { browser, context };
      },
      pages: ({ browser }) => browser.contexts().flatMap((c) => c.pages()),
      newPage: ({ context }) => context.newPage(),
      fill: (page, selector, value) => page.fill(selector, value),
      text: (page, selector) => page.textContent(selector),
      cookies: ({ context }) => context.cookies(),
      // On a connectOverCDP browser, close() only disconnects (Playwright's
      // docs; the browser is left running, which the check below confirms).
      disconnect: ({ browser }) => browser.close(),
    };
  },
  puppeteer: (require) => {
    const puppeteer = require('puppeteer-core');
    return {
      async connect(url, headers) {
        const endpoint = url.startsWith('ws') ? { browserWSEndpoint: url } : { browserURL: url };
        const browser = await puppeteer.connect({
          ...endpoint,
          headers,
          defaultViewport: null,
          protocolTimeout: TIMEOUT_MS,
        });
        return { browser, context: browser.defaultBrowserContext() };
      },
      pages: ({ browser }) => browser.pages(),
      newPage: ({ browser }) => browser.newPage(),
      fill: (page, selector, value) => page.locator(selector).fill(value),
      text: (page, selector) => page.$eval(selector, (e) => e.textContent),
      cookies: ({ context }) => context.cookies(),
      disconnect: ({ browser }) => browser.disconnect(),
    };
  },
};

async function main() {
  if (!drivers[lib]) throw new Error(`usage: drive.mjs <${Object.keys(drivers).join('|')}>`);
  const require = createRequire(path.join(env('WEBRIG_CDP_CLIENTS'), 'package.json'));
  const driver = drivers[lib](require);
  const url = env('CDP_URL');
  const form = env('PAGE_FORM');
  const token = process.env.CDP_TOKEN;
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const wanted = process.env.STEPS ? process.env.STEPS.split(',').map((s) => s.trim()) : ALL;
  const unknown = wanted.filter((s) => !ALL.includes(s));
  if (unknown.length) throw new Error(`unknown steps: ${unknown.join(', ')}`);

  step = 'connect';
  const conn = await driver.connect(url, headers);
  // The page the steps work in: the first one there, or a new one.
  let page;
  const current = async () => (page ??= (await driver.pages(conn))[0] ?? (await driver.newPage(conn)));
  let opened;
  const steps = {};
  const run = {
    pages: async () => (await driver.pages(conn)).map((p) => p.url()),
    goto: async () => {
      const p = await current();
      await p.goto(form);
      return { url: p.url() };
    },
    fill: async () => {
      const p = await current();
      await driver.fill(p, '#name', 'webrig');
      return { value: await p.evaluate(() => document.querySelector('#name').value) };
    },
    click: async () => {
      const p = await current();
      await p.click('#go');
      return { out: await driver.text(p, '#out') };
    },
    evaluate: async () => (await current()).evaluate('1+1'),
    screenshot: async () => {
      const png = await (await current()).screenshot();
      return { bytes: png.length, png: PNG.every((b, i) => png[i] === b) };
    },
    newpage: async () => {
      opened = await driver.newPage(conn);
      await opened.goto(form);
      return { url: opened.url(), pages: (await driver.pages(conn)).length };
    },
    // Names only: a cookie's value is the user's, even in a test log.
    cookies: async () => (await driver.cookies(conn)).map((c) => c.name).sort(),
    close: async () => {
      if (!opened) throw new Error('close closes the page that newpage opened: run newpage first');
      await opened.close();
      return { pages: (await driver.pages(conn)).length };
    },
  };
  for (const name of ALL.filter((s) => wanted.includes(s))) {
    step = name;
    steps[name] = await run[name]();
  }
  step = 'disconnect';
  await driver.disconnect(conn);
  process.stdout.write(JSON.stringify({ lib, ok: true, steps }) + '\n');
  process.exit(0);
}

main().catch(fail);
