// Smoke test of the webrig extension: a mock daemon (HTTP /pair + WebSocket
// /extension with the webrig.v2 handshake) and a real headless Chromium with
// the extension loaded. The
// popup is driven in a tab over CDP (never the extension's service worker);
// everything else goes through the relay protocol (../PROTOCOL.md).
//
//   cd extension/test && npm ci && node relay-smoke.mjs
//
// Env: CHROMIUM (default /usr/lib/chromium/chromium), SMOKE_QUICK=1 skips
// the 45 s silence check, SMOKE_VERBOSE=1 logs every relay frame.

import http from "node:http";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, existsSync, createWriteStream } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { WebSocket, WebSocketServer } from "ws";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const EXT_DIR = path.resolve(HERE, "..");
const EXT_ID = readFileSync(path.join(EXT_DIR, "test-id.txt"), "utf8").trim();
const ORIGIN = `chrome-extension://${EXT_ID}`;
const CHROMIUM = process.env.CHROMIUM || "/usr/lib/chromium/chromium";
const QUICK = process.env.SMOKE_QUICK === "1";
const VERBOSE = process.env.SMOKE_VERBOSE === "1";

const t0 = Date.now();
const since = () => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.log(`[${since()}]`, ...a);

// ---- checks ----------------------------------------------------------------

const results = [];
function check(name, ok, detail = "") {
  results.push({ name, ok: !!ok });
  console.log(`${ok ? "PASS" : "FAIL"} ${name}${detail ? ` — ${detail}` : ""}`);
  return !!ok;
}
async function step(name, fn) {
  try {
    const detail = await fn();
    return check(name, true, detail ?? "");
  } catch (e) {
    return check(name, false, String(e?.stack ?? e).split("\n").slice(0, 3).join(" | "));
  }
}
function assert(cond, message) {
  if (!cond) throw new Error(message);
}
async function until(what, fn, timeoutMs = 10_000, everyMs = 100) {
  const end = Date.now() + timeoutMs;
  let last;
  while (Date.now() < end) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    await sleep(everyMs);
  }
  throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ""}`);
}
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];

// ---- the mock daemon -------------------------------------------------------

/** The handshake's proofs (PROTOCOL.md, "Handshake"), as the daemon computes them. */
const proof = (token, label, port, first, second) =>
  createHmac("sha256", token).update(`webrig.v2 ${label} ${port} ${first} ${second}`).digest("hex");

class MockDaemon {
  constructor() {
    // As the popup sends it: upper case, no dashes (the user types "4829-13AB-CDEF").
    this.code = "482913ABCDEF";
    this.token = "a".repeat(32) + "1".repeat(32);
    this.conn = null; // the open relay connection
    this.upgrades = []; // every /extension attempt: {at, origin, url, protocols, headers, status, outcome}
    this.pairs = []; // every /pair: {method, origin, status, headers}
    this.onConnect = [];
    this.connecting = 0;
    this.maxConcurrent = 0;
    this.silent = false; // stop answering pings
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: 256 * 1024 * 1024,
      handleProtocols: (protocols) => (protocols.has("webrig.v2") ? "webrig.v2" : false),
    });
    this.server = http.createServer((req, res) => this.http(req, res));
    this.server.on("upgrade", (req, socket, head) => this.upgrade(req, socket, head));
  }

  listen() {
    return new Promise((resolve) =>
      this.server.listen(0, "127.0.0.1", () => {
        this.port = this.server.address().port;
        resolve(this.port);
      }),
    );
  }

  http(req, res) {
    const url = new URL(req.url, "http://x");
    const origin = req.headers.origin;
    if (url.pathname === "/pair") {
      const rec = { at: Date.now(), method: req.method, origin, headers: req.headers, status: 0 };
      this.pairs.push(rec);
      if (origin !== ORIGIN) {
        rec.status = 403;
        res.writeHead(403, { "content-type": "application/json" });
        return res.end(JSON.stringify({ ok: false, error: { code: "forbidden", message: "origin" } }));
      }
      if (req.method === "OPTIONS") {
        rec.status = 204;
        const h = {
          "access-control-allow-origin": ORIGIN,
          "access-control-allow-methods": "POST",
          "access-control-allow-headers": "content-type",
          "access-control-max-age": "600",
          vary: "origin",
        };
        if (req.headers["access-control-request-private-network"]) h["access-control-allow-private-network"] = "true";
        res.writeHead(204, h);
        return res.end();
      }
      if (req.method !== "POST") {
        rec.status = 405;
        res.writeHead(405);
        return res.end();
      }
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        let code;
        try {
          code = JSON.parse(body).code;
        } catch {}
        const cors = { "access-control-allow-origin": ORIGIN, vary: "origin", "content-type": "application/json" };
        if (code === this.code) {
          rec.status = 200;
          res.writeHead(200, cors);
          res.end(JSON.stringify({ token: this.token }));
        } else {
          rec.status = 401;
          res.writeHead(401, cors);
          res.end(JSON.stringify({ ok: false, error: { code: "unauthorized", message: "wrong code; 4 tries left" } }));
        }
      });
      return;
    }
    if (url.pathname === "/page.html") {
      res.writeHead(200, { "content-type": "text/html" });
      return res.end(`<!doctype html><title>smoke page</title><h1>hello from the mock</h1>
<p id="p">main frame</p>
<iframe id="f" src="http://localhost:${this.port}/frame.html" width="300" height="100"></iframe>
<script>window.who = "main";</script>`);
    }
    if (url.pathname === "/frame.html") {
      res.writeHead(200, { "content-type": "text/html" });
      return res.end(`<!doctype html><title>frame</title><p>cross-origin frame</p><script>window.who = "frame";</script>`);
    }
    if (url.pathname === "/other.html") {
      res.writeHead(200, { "content-type": "text/html" });
      return res.end(`<!doctype html><title>other</title><p>other page</p>`);
    }
    res.writeHead(404);
    res.end();
  }

  refuse(socket, status, text, rec) {
    rec.status = status;
    socket.write(`HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`);
    socket.destroy();
  }

  upgrade(req, socket, head) {
    const protocols = String(req.headers["sec-websocket-protocol"] ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    const rec = {
      at: Date.now(),
      origin: req.headers.origin,
      url: req.url,
      protocols,
      headers: JSON.stringify(req.headers),
      status: 0,
      outcome: "",
    };
    this.upgrades.push(rec);
    if (req.url !== "/extension") return this.refuse(socket, 404, "Not Found", rec);
    if (req.headers.origin !== ORIGIN) return this.refuse(socket, 403, "Forbidden", rec);
    if (!protocols.includes("webrig.v2")) return this.refuse(socket, 400, "Bad Request", rec);
    this.connecting++;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.connecting);
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      rec.status = 101;
      this.handshake(ws, rec);
    });
  }

  /**
   * The daemon's side of the handshake: prove first (with whatever token
   * the mock holds now), then check the extension's proof; `ready`, and
   * the socket is the relay connection.
   */
  handshake(ws, rec) {
    const token = this.token;
    const port = this.port;
    let nd = null;
    let ne = null;
    const done = (outcome) => {
      if (rec.outcome) return;
      rec.outcome = outcome;
      this.connecting--;
    };
    const timer = setTimeout(() => {
      done("timeout");
      ws.close(4008, "handshake timeout");
    }, 5000);
    ws.on("close", () => {
      clearTimeout(timer);
      done(nd ? "extension closed after the daemon's proof" : "closed before a challenge");
    });
    const onMessage = (data, isBinary) => {
      let msg;
      try {
        msg = isBinary ? null : JSON.parse(data.toString());
      } catch {
        msg = null;
      }
      if (VERBOSE) log("ext → (handshake)", data.toString().slice(0, 200));
      rec.frames = [...(rec.frames ?? []), data.toString()];
      if (!nd && msg?.type === "challenge" && /^[0-9a-f]{64}$/.test(msg.nonce)) {
        ne = msg.nonce;
        nd = randomBytes(32).toString("hex");
        ws.send(JSON.stringify({ type: "daemon-proof", nonce: nd, proof: proof(token, "daemon", port, ne, nd) }));
        return;
      }
      const want = nd && Buffer.from(proof(token, "extension", port, nd, ne), "hex");
      const given = msg?.type === "extension-proof" && /^[0-9a-f]{64}$/.test(msg.proof) && Buffer.from(msg.proof, "hex");
      ws.off("message", onMessage);
      clearTimeout(timer);
      if (!want || !given || !timingSafeEqual(want, given)) {
        done("bad extension proof");
        return ws.close(4001, "handshake failed");
      }
      if (this.conn) {
        done("already connected");
        return ws.close(4009, "this browser is already connected");
      }
      done("ready");
      ws.send(JSON.stringify({ type: "ready" }));
      const conn = new RelayConn(ws, this);
      this.conn = conn;
      ws.on("close", () => {
        if (this.conn === conn) this.conn = null;
      });
      for (const f of this.onConnect.splice(0)) f(conn);
    };
    ws.on("message", onMessage);
  }

  /** The next connection that sends hello. */
  nextConnection(timeoutMs) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no connection within ${timeoutMs / 1000} s`)), timeoutMs);
      this.onConnect.push((conn) => {
        conn.hello.then((h) => {
          clearTimeout(timer);
          resolve(conn);
        });
      });
    });
  }

  close() {
    this.conn?.ws.terminate();
    this.wss.close();
    this.server.closeAllConnections?.();
    this.server.close();
  }
}

class RelayConn {
  constructor(ws, daemon) {
    this.ws = ws;
    this.openedAt = Date.now();
    this.closedAt = 0;
    this.nextId = 1;
    this.pending = new Map();
    this.events = [];
    this.waiters = [];
    this.pings = [];
    this.protocol = ws.protocol;
    this.hello = new Promise((r) => (this.resolveHello = r));
    this.closed = new Promise((r) => (this.resolveClosed = r));
    ws.on("message", (data, isBinary) => {
      if (isBinary) return;
      const text = data.toString();
      let msg;
      try {
        msg = JSON.parse(text);
      } catch {
        log("mock: non-JSON frame", text.slice(0, 100));
        return;
      }
      if (VERBOSE) log("ext →", text.slice(0, 300));
      if (msg.type === "hello") {
        this.helloMsg = msg;
        this.resolveHello(msg);
      } else if (msg.type === "ping") {
        this.pings.push(Date.now());
        if (!daemon.silent) ws.send(JSON.stringify({ type: "pong" }));
      } else if ("id" in msg && this.pending.has(msg.id)) {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        p.resolve(msg);
      } else {
        this.events.push(msg);
        for (const w of [...this.waiters]) {
          if (w.pred(msg)) {
            this.waiters.splice(this.waiters.indexOf(w), 1);
            w.resolve(msg);
          }
        }
      }
    });
    ws.on("close", (code, reason) => {
      this.closedAt = Date.now();
      this.closeCode = code;
      this.closeReason = reason.toString();
      for (const p of this.pending.values()) p.reject(new Error("connection closed"));
      this.pending.clear();
      this.resolveClosed({ code, reason: this.closeReason });
    });
  }

  /** Sends a request; resolves with the whole answer ({id, result} or {id, error}). */
  raw(obj, timeoutMs = 15_000) {
    return new Promise((resolve, reject) => {
      const id = obj.id;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`no answer to ${obj.method} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      if (VERBOSE) log("→ ext", JSON.stringify(obj).slice(0, 300));
      this.ws.send(JSON.stringify(obj));
    });
  }

  async call(method, params = {}, timeoutMs) {
    const answer = await this.raw({ id: this.nextId++, method, params }, timeoutMs);
    if (answer.error) {
      const e = new Error(`${method}: ${answer.error.code}: ${answer.error.message}`);
      e.answer = answer;
      throw e;
    }
    return answer.result;
  }

  async callError(method, params) {
    const answer = await this.raw({ id: this.nextId++, method, params });
    if (!answer.error) throw new Error(`${method} should have failed, got ${JSON.stringify(answer.result).slice(0, 200)}`);
    return answer.error;
  }

  cdp(sessionId, method, params = {}, timeoutMs) {
    return this.call("cdp", { sessionId, method, params }, timeoutMs);
  }

  /** An event already received or the next one matching `pred`. */
  waitEvent(pred, timeoutMs = 10_000, what = "event") {
    const seen = this.events.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const w = { pred, resolve };
      this.waiters.push(w);
      setTimeout(() => {
        const i = this.waiters.indexOf(w);
        if (i >= 0) {
          this.waiters.splice(i, 1);
          reject(new Error(`no ${what} within ${timeoutMs} ms`));
        }
      }, timeoutMs);
    });
  }
}

// ---- a minimal CDP client (browser endpoint, flat sessions) ------------------

class Cdp {
  static async connect(url) {
    const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    return new Cdp(ws);
  }
  constructor(ws) {
    this.ws = ws;
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = [];
    ws.on("message", (data) => {
      const msg = JSON.parse(data.toString());
      if (msg.id && this.pending.has(msg.id)) {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        if (msg.error) p.reject(Object.assign(new Error(`${p.method}: ${msg.error.message}`), { cdp: msg.error }));
        else p.resolve(msg.result);
      } else if (msg.method) {
        for (const l of this.listeners) l(msg);
      }
    });
  }
  send(method, params = {}, sessionId) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  }
  on(fn) {
    this.listeners.push(fn);
  }
  close() {
    this.ws.close();
  }
}

// ---- the run ---------------------------------------------------------------

const daemon = new MockDaemon();
let chrome;
let cdp;
let profile;
const timings = {};

async function launchChromium() {
  profile = mkdtempSync(path.join(tmpdir(), "webrig-ext-smoke-"));
  const args = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    `--user-data-dir=${profile}`,
    "--remote-debugging-port=0",
    `--load-extension=${EXT_DIR}`,
    `--disable-extensions-except=${EXT_DIR}`,
    "about:blank",
  ];
  const errlog = createWriteStream(path.join(profile, "chromium.log"));
  chrome = spawn(CHROMIUM, args, { stdio: ["ignore", "pipe", "pipe"] });
  chrome.stdout.pipe(errlog);
  chrome.stderr.pipe(errlog);
  const portFile = path.join(profile, "DevToolsActivePort");
  const text = await until("DevToolsActivePort", () => existsSync(portFile) && readFileSync(portFile, "utf8"), 30_000, 100);
  const [port, wsPath] = text.trim().split("\n");
  return `ws://127.0.0.1:${port}${wsPath}`;
}

function chromiumLogTail() {
  try {
    return readFileSync(path.join(profile, "chromium.log"), "utf8").split("\n").slice(-25).join("\n");
  } catch {
    return "";
  }
}

/** The popup in a normal tab, with a flat CDP session to it. */
async function openPopup() {
  const { targetId } = await cdp.send("Target.createTarget", { url: `${ORIGIN}/popup.html` });
  const { sessionId } = await cdp.send("Target.attachToTarget", { targetId, flatten: true });
  const popup = {
    targetId,
    sessionId,
    async eval(expression) {
      const r = await cdp.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true }, sessionId);
      if (r.exceptionDetails) throw new Error(`popup: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
      return r.result.value;
    },
    async pair(port, code) {
      await popup.eval(`(() => {
        document.getElementById("port").value = ${JSON.stringify(String(port))};
        document.getElementById("code").value = ${JSON.stringify(code)};
        document.getElementById("message").textContent = "";
        document.getElementById("pair").click();
        return true;
      })()`);
    },
    text: (id) => popup.eval(`document.getElementById(${JSON.stringify(id)}).textContent`),
    close: () => cdp.send("Target.closeTarget", { targetId }),
  };
  await until("the popup page", () => popup.eval(`document.readyState === "complete" && !!document.getElementById("pair") && document.getElementById("state").textContent !== "…"`), 15_000, 200);
  return popup;
}

async function main() {
  await step("manifest: MV3 module worker, exactly the five permissions, no host access; key pins the id", async () => {
    const { createHash } = await import("node:crypto");
    const m = JSON.parse(readFileSync(path.join(EXT_DIR, "manifest.json"), "utf8"));
    assert(m.manifest_version === 3 && m.background?.type === "module" && m.background?.service_worker === "background.js", "background");
    assert(JSON.stringify([...m.permissions].sort()) === JSON.stringify(["alarms", "debugger", "storage", "tabGroups", "tabs"]), `permissions ${m.permissions}`);
    for (const k of ["host_permissions", "optional_host_permissions", "optional_permissions", "content_scripts", "externally_connectable", "web_accessible_resources"]) {
      assert(!(k in m), `${k} present`);
    }
    const id = [...createHash("sha256").update(Buffer.from(m.key, "base64")).digest("hex").slice(0, 32)]
      .map((c) => String.fromCharCode(97 + parseInt(c, 16)))
      .join("");
    assert(id === EXT_ID, `key gives ${id}, test-id.txt says ${EXT_ID}`);
    const { readdirSync } = await import("node:fs");
    for (const f of readdirSync(EXT_DIR).filter((f) => f.endsWith(".js"))) {
      const src = readFileSync(path.join(EXT_DIR, f), "utf8");
      assert(!/\beval\s*\(|new\s+Function\b|importScripts|setTimeout\(\s*["'`]/.test(src), `${f} evaluates strings`);
    }
    return `id ${id}`;
  });

  await step("backoff schedule: 0.5 s doubling to 30 s, ±20 % jitter", async () => {
    const { backoffDelay } = await import("../relay.js");
    const lo = [0, 1, 2, 3, 4, 5, 6, 7, 12].map((n) => backoffDelay(n, () => 0));
    const hi = [0, 1, 2, 3, 4, 5, 6, 7, 12].map((n) => backoffDelay(n, () => 0.999999));
    const mid = [0, 1, 2, 3, 4, 5, 6, 7, 12].map((n) => backoffDelay(n, () => 0.5));
    assert(JSON.stringify(mid) === JSON.stringify([500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]), `mid ${mid}`);
    assert(lo.every((v, i) => Math.abs(v - mid[i] * 0.8) <= 1) && hi.every((v, i) => Math.abs(v - mid[i] * 1.2) <= 1), `lo ${lo} hi ${hi}`);
    return `${mid.map((v) => v / 1000).join(", ")} s`;
  });

  await daemon.listen();
  log(`mock daemon on 127.0.0.1:${daemon.port}; extension ${ORIGIN}`);
  const browserUrl = await launchChromium();
  cdp = await Cdp.connect(browserUrl);
  const version = await cdp.send("Browser.getVersion");
  log(`${version.product}, DevTools ${browserUrl}`);
  await cdp.send("Target.setDiscoverTargets", { discover: true });

  // The extension loads: its service worker shows up as a target (seen, not attached).
  await step("extension loaded (service worker target listed)", async () => {
    const sw = await until("the extension's service worker", async () => {
      const { targetInfos } = await cdp.send("Target.getTargets");
      return targetInfos.find((t) => t.type === "service_worker" && t.url.startsWith(ORIGIN));
    }, 15_000, 200);
    return sw.url;
  });

  let popup;
  await step("popup opens in a tab and shows 'not paired'", async () => {
    popup = await openPopup();
    const state = await popup.text("state");
    assert(/not paired/.test(state), `state is ${state}`);
    return `state "${state}"`;
  });

  await step("wrong pairing code refused (popup shows the daemon's message, nothing stored)", async () => {
    await popup.pair(daemon.port, "0000-0000-0000");
    const msg = await until("the refusal", async () => {
      const m = await popup.text("message");
      return /refused|cannot/.test(m) && m;
    }, 10_000);
    assert(/wrong code/.test(msg), `message: ${msg}`);
    const stored = await popup.eval(`chrome.storage.local.get("token").then(x => x.token ?? null)`);
    assert(stored === null, "a token was stored");
    const pre = daemon.pairs.find((p) => p.method === "OPTIONS");
    assert(pre, "no CORS preflight seen");
    return `"${msg}"; preflight from ${pre.origin}${pre.headers["access-control-request-private-network"] ? " (asked for private network access)" : ""}`;
  });

  let conn;
  await step("a code of the wrong shape is refused by the popup, without a request", async () => {
    const before = daemon.pairs.length;
    await popup.pair(daemon.port, "123456");
    const msg = await until("the popup's refusal", async () => {
      const m = await popup.text("message");
      return /12 letters/.test(m) && m;
    }, 5000);
    assert(daemon.pairs.length === before, "a request went out");
    return `"${msg}"`;
  });

  await step("pairing with the right code stores the token and connects (only webrig.v2 offered, the token never sent, mutual proofs, hello)", async () => {
    const next = daemon.nextConnection(15_000);
    const t = Date.now();
    // Typed in lower case with dashes: the popup normalizes it.
    await popup.pair(daemon.port, `${daemon.code.slice(0, 4)}-${daemon.code.slice(4, 8)}-${daemon.code.slice(8)}`.toLowerCase());
    conn = await next;
    timings.pairToHello = Date.now() - t;
    const up = daemon.upgrades.at(-1);
    assert(up.url === "/extension", `url ${up.url}`);
    assert(up.origin === ORIGIN, `origin ${up.origin}`);
    assert(JSON.stringify(up.protocols) === JSON.stringify(["webrig.v2"]), `protocols ${up.protocols}`);
    assert(!up.headers.includes(daemon.token) && !up.url.includes(daemon.token), "the token in the upgrade");
    assert(up.outcome === "ready" && up.frames.every((f) => !f.includes(daemon.token)), `handshake ${JSON.stringify(up)}`);
    const h = conn.helloMsg;
    assert(h.protocol === "webrig.v2" && h.extension === "0.1.0" && /Chrome/.test(h.browser) && Array.isArray(h.tabs), `hello ${JSON.stringify(h)}`);
    const stored = await popup.eval(`chrome.storage.local.get(["token","port"])`);
    assert(stored.token === daemon.token && stored.port === daemon.port, `stored ${JSON.stringify(stored)}`);
    await until("popup says connected", async () => /^connected/.test(await popup.text("state")), 5000);
    return `hello after ${timings.pairToHello} ms: ${JSON.stringify(h).slice(0, 160)}`;
  });
  if (!conn) throw new Error("no connection; the rest cannot run");

  // The user's windows as they were before the agent opened anything: each
  // with its active tab, and which one had the focus.
  const windowsNow = () =>
    popup.eval(`chrome.windows.getAll({ populate: true }).then(ws => ws.map(w => ({
      id: w.id, focused: w.focused, type: w.type, state: w.state,
      active: w.tabs.find(t => t.active)?.id ?? null, tabs: w.tabs.map(t => t.id) })))`);
  const userWindows = await windowsNow();
  const tabNow = (id) => popup.eval(`chrome.tabs.get(${id}).then(t => ({ windowId: t.windowId, active: t.active, groupId: t.groupId }))`);
  /** Throws unless every window the user had still has the same active tab. */
  async function userWindowsUntouched() {
    const now = await windowsNow();
    for (const u of userWindows) {
      const w = now.find((x) => x.id === u.id);
      assert(w, `the user's window ${u.id} is gone`);
      assert(w.active === u.active, `the user's window ${u.id}: active tab ${w.active}, was ${u.active}`);
      assert(w.focused === u.focused, `the user's window ${u.id}: focused ${w.focused}, was ${u.focused}`);
    }
    return now;
  }

  let tabId, targetId, sessionId, sessionWindow;
  await step("tabs.create opens the mock's page in a grey tab group", async () => {
    const r = await conn.call("tabs.create", { url: `http://127.0.0.1:${daemon.port}/page.html`, group: "smoke" });
    ({ tabId, targetId } = r);
    assert(Number.isInteger(tabId) && typeof targetId === "string" && targetId.length > 8, JSON.stringify(r));
    const { targetInfos } = await cdp.send("Target.getTargets");
    assert(targetInfos.some((t) => t.targetId === targetId && t.type === "page"), "targetId is not a page target");
    const grouped = r.groupId >= 0 ? `group ${r.groupId}` : `NOT grouped (${r.groupError})`;
    assert(r.groupId >= 0, grouped);
    const g = await popup.eval(`chrome.tabGroups.get(${r.groupId}).then(g => ({title: g.title, color: g.color}))`);
    assert(g.title === "smoke" && g.color === "grey", JSON.stringify(g));
    const r2 = await conn.call("tabs.create", { url: "about:blank", group: "smoke" });
    assert(r2.groupId === r.groupId, `second tab in group ${r2.groupId}, first ${r.groupId}`);
    await conn.call("tabs.close", { tabId: r2.tabId });
    return `tab ${tabId}, target ${targetId.slice(0, 8)}…, ${grouped} (same group for a second tab)`;
  });

  await step("tabs.create: the session's own window (active tab, not the user's window; the user's active tab and focus unchanged)", async () => {
    const first = await tabNow(tabId);
    sessionWindow = first.windowId;
    assert(!userWindows.some((w) => w.id === sessionWindow), `tab ${tabId} went into the user's window ${sessionWindow}`);
    assert(first.active, `tab ${tabId} is not the active tab of window ${sessionWindow}`);
    const r2 = await conn.call("tabs.create", { url: "about:blank", group: "smoke" });
    const second = await tabNow(r2.tabId);
    assert(r2.windowId === sessionWindow && second.windowId === sessionWindow, `second tab in window ${second.windowId} (result says ${r2.windowId}), first in ${sessionWindow}`);
    assert(second.active, "the second tab is not active in the session's window");
    assert(second.groupId === first.groupId, `second tab in group ${second.groupId}, first ${first.groupId}`);
    const now = await userWindowsUntouched();
    const w = now.find((x) => x.id === sessionWindow);
    assert(w.type === "normal" && w.state !== "minimized" && !w.focused, `session window ${JSON.stringify(w)}`);
    await conn.call("tabs.close", { tabId: r2.tabId });
    // Closing the active tab activates another; the page tab is the only one left.
    assert((await tabNow(tabId)).active, "the page tab is not active again after closing the second");
    return `window ${sessionWindow} (${w.state}, focused ${w.focused}); user's windows ${JSON.stringify(userWindows.map((u) => ({ id: u.id, active: u.active, focused: u.focused })))} unchanged`;
  });

  await step("tabs.create: a session whose window the user closed gets a new one", async () => {
    const a = await conn.call("tabs.create", { url: "about:blank", group: "smoke-closed" });
    assert(a.windowId !== sessionWindow && !userWindows.some((w) => w.id === a.windowId), `window ${a.windowId}`);
    await conn.call("tabs.close", { tabId: a.tabId });
    await until("the emptied window closes", async () => !(await windowsNow()).some((w) => w.id === a.windowId), 5000);
    const b = await conn.call("tabs.create", { url: "about:blank", group: "smoke-closed" });
    const t = await tabNow(b.tabId);
    assert(t.windowId === b.windowId && b.windowId !== a.windowId && b.windowId !== sessionWindow, `new tab in window ${t.windowId}, closed one ${a.windowId}`);
    assert(t.active, "not the active tab of its window");
    await userWindowsUntouched();
    await conn.call("tabs.close", { tabId: b.tabId });
    return `window ${a.windowId} closed with its last tab; next create opened ${b.windowId}`;
  });

  await step("tab-updated event for the created tab", async () => {
    const ev = await conn.waitEvent((e) => e.type === "tab-updated" && e.tabId === tabId, 5000, "tab-updated");
    return ev.url;
  });

  let child;
  await step("attach → tab-<id>, Target.attachedToTarget for the cross-site iframe (OOPIF)", async () => {
    // Let the page and its frame load first, so the OOPIF exists at attach time.
    await sleep(500);
    const t = Date.now();
    const r = await conn.call("attach", { tabId });
    timings.attach = Date.now() - t;
    sessionId = r.sessionId;
    assert(sessionId === `tab-${tabId}`, `sessionId ${sessionId}`);
    const ev = await conn.waitEvent(
      (e) => e.type === "event" && e.sessionId === sessionId && e.method === "Target.attachedToTarget" && e.params.targetInfo?.type === "iframe",
      10_000,
      "Target.attachedToTarget (iframe)",
    );
    child = ev.params.sessionId;
    assert(typeof child === "string" && child.length > 0, "child sessionId");
    return `attach ${timings.attach} ms; child session ${child.slice(0, 8)}… for ${ev.params.targetInfo.url}`;
  });

  await step("the agent's tab is visible and gets animation frames (not a background tab)", async () => {
    const r = await conn.cdp(sessionId, "Runtime.evaluate", {
      expression: `Promise.race([
        new Promise((r) => requestAnimationFrame(() => r("frame, " + document.visibilityState))),
        new Promise((r) => setTimeout(() => r("no frame in 2 s, " + document.visibilityState), 2000)),
      ])`,
      awaitPromise: true,
      returnByValue: true,
    });
    assert(r.result?.value === "frame, visible", JSON.stringify(r.result));
    return r.result.value;
  });

  await step("cdp Runtime.evaluate 1+1 → 2 (round trip timed)", async () => {
    const r = await conn.cdp(sessionId, "Runtime.evaluate", { expression: "1+1", returnByValue: true });
    assert(r.result?.value === 2, JSON.stringify(r));
    const times = [];
    for (let i = 0; i < 30; i++) {
      const t = process.hrtime.bigint();
      await conn.cdp(sessionId, "Runtime.evaluate", { expression: "1+1", returnByValue: true });
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    timings.evalMedianMs = median(times).toFixed(2);
    timings.evalMaxMs = Math.max(...times).toFixed(2);
    return `median ${timings.evalMedianMs} ms, max ${timings.evalMaxMs} ms over 30`;
  });

  await step("events of the tab session are forwarded (Page.enable → Page.loadEventFired on reload)", async () => {
    await conn.cdp(sessionId, "Page.enable");
    const n = conn.events.length;
    await conn.cdp(sessionId, "Page.reload");
    const ev = await conn.waitEvent((e) => conn.events.indexOf(e) >= n && e.sessionId === sessionId && e.method === "Page.loadEventFired", 10_000, "Page.loadEventFired");
    // The reload makes a new OOPIF: a fresh child session.
    const again = await conn.waitEvent(
      (e) => conn.events.indexOf(e) >= n && e.method === "Target.attachedToTarget" && e.params.targetInfo?.type === "iframe",
      10_000,
      "a new iframe session after reload",
    );
    child = again.params.sessionId;
    return `loadEventFired at ${ev.params.timestamp}`;
  });

  await step("OOPIF: evaluate in the child session; its events carry the child's sessionId", async () => {
    const n = conn.events.length;
    await conn.cdp(child, "Runtime.enable");
    const ev = await conn.waitEvent((e) => conn.events.indexOf(e) >= n && e.method === "Runtime.executionContextCreated", 5000, "executionContextCreated");
    assert(ev.sessionId === child, `event sessionId ${ev.sessionId}, child ${child}`);
    const r = await conn.cdp(child, "Runtime.evaluate", { expression: "location.host + ' ' + window.who", returnByValue: true });
    assert(r.result?.value === `localhost:${daemon.port} frame`, JSON.stringify(r.result));
    const main = await conn.cdp(sessionId, "Runtime.evaluate", { expression: "location.host + ' ' + window.who", returnByValue: true });
    assert(main.result?.value === `127.0.0.1:${daemon.port} main`, JSON.stringify(main.result));
    return `child says "${r.result.value}", main says "${main.result.value}"`;
  });

  await step("tabs.activate (the session's window is not focused) then Page.captureScreenshot", async () => {
    await conn.call("tabs.activate", { tabId });
    const now = await userWindowsUntouched();
    assert(!now.find((w) => w.id === sessionWindow)?.focused, "tabs.activate focused the session's window");
    const t = Date.now();
    const r = await conn.cdp(sessionId, "Page.captureScreenshot", { format: "png" }, 30_000);
    timings.screenshot = Date.now() - t;
    assert(typeof r.data === "string" && r.data.startsWith("iVBORw0KGgo"), "not a PNG");
    return `${Math.round((r.data.length * 3) / 4 / 1024)} KiB PNG in ${timings.screenshot} ms`;
  });

  await step("tabs.list shows the held tab with its targetId", async () => {
    const r = await conn.call("tabs.list");
    const t = r.tabs.find((x) => x.tabId === tabId);
    assert(t, "tab missing");
    assert(t.held === true && t.targetId === targetId && t.active === true && t.url.endsWith("/page.html") && t.title === "smoke page" && t.groupId >= 0, JSON.stringify(t));
    const popupHeld = await until("the popup lists the held tab", async () => (await popup.eval(`document.getElementById("held").textContent`)).includes("smoke page") || null, 3000);
    return `${r.tabs.length} tabs; popup lists it: ${popupHeld}`;
  });

  await step("the user's own tabs are invisible and refused until lent in the popup", async () => {
    const userTab = await popup.eval(`chrome.tabs.query({}).then(ts => ts.find(t => t.url === "about:blank" && t.groupId === -1)?.id ?? null)`);
    assert(Number.isInteger(userTab), "no user tab to try");
    const listed = (r) => r.tabs.some((t) => t.tabId === userTab);
    assert(!listed(await conn.call("tabs.list")), "the user's tab is listed");
    for (const [method, params] of [["attach", { tabId: userTab }], ["tabs.activate", { tabId: userTab }], ["tabs.close", { tabId: userTab }]]) {
      const e = await conn.callError(method, params);
      assert(e.code === "not_found", `${method}: ${JSON.stringify(e)}`);
    }
    await popup.eval(`document.querySelector('#lendable button.lend[data-tab-id="${userTab}"]').click(), true`);
    await until("the tab is lent", async () => listed(await conn.call("tabs.list")), 5000);
    const a = await conn.call("attach", { tabId: userTab });
    const e = await conn.callError("tabs.close", { tabId: userTab });
    assert(e.code === "denied", `close of a lent tab: ${JSON.stringify(e)}`);
    await popup.eval(`document.querySelector('#lendable button.unlend[data-tab-id="${userTab}"]').click(), true`);
    await conn.waitEvent((ev) => ev.type === "detached" && ev.sessionId === a.sessionId, 5000, "detached on take back");
    await until("taken back", async () => !listed(await conn.call("tabs.list")), 5000);
    return `tab ${userTab}: refused, lent (attached as ${a.sessionId}, close denied), taken back (detached)`;
  });

  await step("bad requests are answered with errors (validation)", async () => {
    const e1 = await conn.callError("nope", {});
    assert(e1.code === "not_found", JSON.stringify(e1));
    const e2 = await conn.callError("cdp", { sessionId: 5, method: "Runtime.evaluate" });
    assert(e2.code === "failed", JSON.stringify(e2));
    const e3 = await conn.callError("cdp", { sessionId: "tab-999999", method: "Runtime.evaluate", params: {} });
    assert(e3.code === "not_found", JSON.stringify(e3));
    const e4 = await conn.callError("tabs.create", { url: "javascript:alert(1)" });
    assert(e4.code === "denied", JSON.stringify(e4));
    const e5 = await conn.callError("cdp", { sessionId, method: "Runtime.evaluate; x", params: {} });
    assert(e5.code === "failed", JSON.stringify(e5));
    const e6 = await conn.callError("attach", { tabId: "1" });
    assert(e6.code === "failed", JSON.stringify(e6));
    const e7 = await conn.callError("tabs.close", { tabId: 987654 });
    assert(e7.code === "not_found", JSON.stringify(e7));
    const e8 = await conn.callError("cdp", { sessionId, method: "Nope.nope", params: {} });
    assert(e8.code === "failed", JSON.stringify(e8));
    // A request with params that are not an object, and a frame that is not JSON.
    const e9 = await conn.raw({ id: 424242, method: "tabs.list", params: [1] });
    assert(e9.error?.code === "failed", JSON.stringify(e9));
    conn.ws.send("not json");
    const still = await conn.call("tabs.list");
    assert(Array.isArray(still.tabs), "no answer after a bad frame");
    return `e.g. ${JSON.stringify(e8)}`;
  });

  await step("detach → {}; the session is gone afterwards", async () => {
    await conn.call("detach", { sessionId });
    const e = await conn.callError("cdp", { sessionId, method: "Runtime.evaluate", params: { expression: "1" } });
    assert(e.code === "not_found", JSON.stringify(e));
    const e2 = await conn.callError("cdp", { sessionId: child, method: "Runtime.evaluate", params: { expression: "1" } });
    assert(e2.code === "not_found", JSON.stringify(e2));
    const { targetInfos } = await cdp.send("Target.getTargets");
    const t = targetInfos.find((x) => x.targetId === targetId);
    assert(t && !t.attached, `target still attached: ${JSON.stringify(t)}`);
    return "tab still open, not attached";
  });

  await step("release detaches everything held", async () => {
    const a = await conn.call("attach", { tabId });
    const again = await conn.call("attach", { tabId });
    assert(again.sessionId === a.sessionId, "attach twice differs");
    await conn.call("release");
    const e = await conn.callError("cdp", { sessionId: a.sessionId, method: "Runtime.evaluate", params: { expression: "1" } });
    assert(e.code === "not_found", JSON.stringify(e));
    const list = await conn.call("tabs.list");
    assert(!list.tabs.some((t) => t.held), "something still held");
    return "";
  });

  await step("closing a held tab: detached (target_closed) + tab-removed", async () => {
    const { tabId: tid } = await conn.call("tabs.create", { url: `http://127.0.0.1:${daemon.port}/other.html` });
    const { sessionId: sid } = await conn.call("attach", { tabId: tid });
    await conn.call("tabs.close", { tabId: tid });
    const d = await conn.waitEvent((e) => e.type === "detached" && e.sessionId === sid, 5000, "detached");
    await conn.waitEvent((e) => e.type === "tab-removed" && e.tabId === tid, 5000, "tab-removed");
    return `reason ${d.reason}`;
  });

  // ---- reconnects ----------------------------------------------------------

  await step("the daemon drops the socket: reconnect with backoff, hello names the held tab", async () => {
    await conn.call("attach", { tabId });
    const next = daemon.nextConnection(10_000);
    const t = Date.now();
    conn.ws.terminate();
    conn = await next;
    timings.reconnectAfterDrop = Date.now() - t;
    assert(conn.helloMsg.tabs.includes(tabId), `hello.tabs ${JSON.stringify(conn.helloMsg.tabs)}`);
    const { targetInfos } = await cdp.send("Target.getTargets");
    assert(!targetInfos.find((x) => x.targetId === targetId)?.attached, "the tab stayed attached across the drop");
    assert(timings.reconnectAfterDrop >= 350, `too fast: ${timings.reconnectAfterDrop} ms`);
    return `back in ${timings.reconnectAfterDrop} ms (first backoff 0.5 s ±20 %); hello.tabs ${JSON.stringify(conn.helloMsg.tabs)}; released meanwhile`;
  });

  await step("a daemon that cannot prove it holds the token: the extension closes, sends no proof, backs off; re-pairing reconnects", async () => {
    const before = daemon.upgrades.length;
    const oldToken = daemon.token;
    daemon.token = "b".repeat(64); // like `webrig token rotate`, or a stranger on the port
    daemon.code = "7712349ABCDE";
    conn.ws.terminate();
    const failed = (u) => u.outcome === "extension closed after the daemon's proof";
    await until("three attempts the extension gave up on", () => daemon.upgrades.slice(before).filter(failed).length >= 3, 15_000, 50);
    const refused = daemon.upgrades.slice(before).filter(failed);
    const gaps = refused.slice(1).map((u, i) => u.at - refused[i].at);
    assert(!daemon.conn, "connected to a daemon that could not prove itself");
    for (const u of refused) {
      // Only the challenge: no proof of its own, no hello, nothing of the token.
      assert(u.frames.length === 1 && JSON.parse(u.frames[0]).type === "challenge", `frames ${JSON.stringify(u.frames)}`);
      assert(!u.headers.includes(oldToken) && !u.frames[0].includes(oldToken), "the token was sent");
    }
    assert(gaps[1] > gaps[0] * 1.2, `backoff not growing: ${gaps}`);
    const state = await until("the popup shows retrying", async () => {
      const s = await popup.text("state");
      return /retrying|connecting/.test(s) && `${s} / ${await popup.text("problem")}`;
    }, 5000);
    const next = daemon.nextConnection(15_000);
    await popup.pair(daemon.port, daemon.code);
    conn = await next;
    return `gave up on ${gaps.length + 1} attempts, gaps ${gaps.map((g) => `${g} ms`).join(", ")}; popup: "${state}"; re-paired`;
  });

  await step("one connect in flight at a time", async () => {
    assert(daemon.maxConcurrent <= 1, `max concurrent upgrades ${daemon.maxConcurrent}`);
    return `max ${daemon.maxConcurrent}`;
  });

  await step("Stop in the popup: releases, closes, does not reconnect; Connect resumes", async () => {
    await conn.call("attach", { tabId });
    const closed = conn.closed;
    await popup.eval(`document.getElementById("stop").click(), true`);
    await closed;
    const tries = daemon.upgrades.length;
    await until("popup says stopped", async () => /stopped/.test(await popup.text("state")), 3000);
    const { targetInfos } = await cdp.send("Target.getTargets");
    assert(!targetInfos.find((x) => x.targetId === targetId)?.attached, "tab still attached after Stop");
    await sleep(2500);
    assert(daemon.upgrades.length === tries, "reconnected after Stop");
    const next = daemon.nextConnection(10_000);
    await popup.eval(`document.getElementById("connect").click(), true`);
    conn = await next;
    assert(conn.helloMsg.tabs.length === 0, `hello.tabs after Stop: ${JSON.stringify(conn.helloMsg.tabs)}`);
    return "no reconnect in 2.5 s; Connect reconnected with hello.tabs []";
  });

  // ---- the worker stops ----------------------------------------------------

  async function stopWorkers() {
    try {
      await cdp.send("ServiceWorker.stopAllWorkers");
      return "browser target";
    } catch (e) {
      // Not on the browser target: use a plain page's session (the initial
      // about:blank tab), never the extension's worker target.
      const { targetInfos } = await cdp.send("Target.getTargets");
      const page = targetInfos.find((t) => t.type === "page" && t.url === "about:blank");
      assert(page, `no about:blank page to use (${e.message})`);
      const { sessionId: s } = await cdp.send("Target.attachToTarget", { targetId: page.targetId, flatten: true });
      await cdp.send("ServiceWorker.enable", {}, s).catch(() => {});
      await cdp.send("ServiceWorker.stopAllWorkers", {}, s);
      await cdp.send("Target.detachFromTarget", { sessionId: s });
      return `a page session (browser target said: ${e.message})`;
    }
  }

  await step("worker stopped while the popup is open: woken and reconnected (hello names the held tab, leftover detached)", async () => {
    await conn.call("attach", { tabId });
    const closed = conn.closed;
    const next = daemon.nextConnection(45_000);
    const t = Date.now();
    const how = await stopWorkers();
    const c = await closed;
    conn = await next;
    timings.reviveWithPopup = Date.now() - t;
    assert(conn.helloMsg.tabs.includes(tabId), `hello.tabs ${JSON.stringify(conn.helloMsg.tabs)}`);
    const { targetInfos } = await cdp.send("Target.getTargets");
    assert(!targetInfos.find((x) => x.targetId === targetId)?.attached, "leftover debugger session not detached");
    return `stopped via ${how} (socket closed ${c.code}); reconnected in ${timings.reviveWithPopup} ms`;
  });

  await step("worker stopped with no page of the extension open: the 30 s alarm revives it", async () => {
    await popup.close();
    await sleep(1000);
    const closed = conn.closed;
    const next = daemon.nextConnection(75_000);
    const t = Date.now();
    await stopWorkers();
    await closed;
    conn = await next;
    timings.reviveByAlarm = Date.now() - t;
    return `reconnected ${(timings.reviveByAlarm / 1000).toFixed(1)} s after the stop`;
  });

  await step("worker stopped while it holds a tab, nothing of the extension open: what survives, what wakes it", async () => {
    await conn.call("attach", { tabId });
    const closed = conn.closed;
    const next = daemon.nextConnection(75_000);
    const t = Date.now();
    await stopWorkers();
    await closed;
    await sleep(300);
    const { targetInfos } = await cdp.send("Target.getTargets");
    const kept = !!targetInfos.find((x) => x.targetId === targetId)?.attached;
    conn = await next;
    timings.reviveHolding = Date.now() - t;
    assert(conn.helloMsg.tabs.includes(tabId), `hello.tabs ${JSON.stringify(conn.helloMsg.tabs)}`);
    const after = (await cdp.send("Target.getTargets")).targetInfos.find((x) => x.targetId === targetId);
    assert(!after?.attached, "leftover debugger session not detached by the new worker");
    return `debugger session ${kept ? "survived" : "did not survive"} the stop; reconnected in ${(timings.reviveHolding / 1000).toFixed(1)} s; new worker detached it and named tab ${tabId} in hello`;
  });

  await step("after a worker restart, the session's next tab still goes to its window (windows persisted)", async () => {
    const r = await conn.call("tabs.create", { url: "about:blank", group: "smoke" });
    assert(r.windowId === sessionWindow, `window ${r.windowId}, the session's ${sessionWindow}`);
    await conn.call("tabs.close", { tabId: r.tabId });
    return `window ${r.windowId}`;
  });

  // ---- heartbeat -------------------------------------------------------------

  await step("heartbeat: ping every ~20 s, answered with pong", async () => {
    const start = conn.openedAt;
    await until("two pings", () => conn.pings.length >= 2, 50_000, 200);
    const first = conn.pings[0] - start;
    const gap = conn.pings[1] - conn.pings[0];
    assert(Math.abs(gap - 20_000) < 2_000, `gap ${gap} ms`);
    return `first ping ${(first / 1000).toFixed(1)} s after open, then every ${(gap / 1000).toFixed(1)} s`;
  });

  if (!QUICK) {
    await step("silence: no pong for 45 s → the extension closes and reconnects", async () => {
      daemon.silent = true;
      const lastRx = Date.now(); // the daemon sends nothing from now on
      const c = await Promise.race([conn.closed, sleep(70_000).then(() => null)]);
      assert(c, "not closed within 70 s");
      const after = conn.closedAt - lastRx;
      daemon.silent = false;
      const next = daemon.nextConnection(10_000);
      conn = await next;
      assert(after >= 44_000 && after <= 48_000, `closed after ${after} ms`);
      return `closed ${(after / 1000).toFixed(1)} s after the daemon went quiet (code ${c.code} ${c.reason}), reconnected`;
    });
  } else {
    log("SMOKE_QUICK=1: skipping the 45 s silence check");
  }
}

let fatal;
try {
  await main();
} catch (e) {
  fatal = e;
  check("the run itself", false, String(e?.stack ?? e));
} finally {
  try {
    cdp?.close();
  } catch {}
  daemon.close();
  if (chrome && chrome.exitCode === null) {
    chrome.kill("SIGTERM");
    await Promise.race([new Promise((r) => chrome.once("exit", r)), sleep(5000)]);
    if (chrome.exitCode === null) chrome.kill("SIGKILL");
  }
}

const failed = results.filter((r) => !r.ok);
if (failed.length) {
  console.log("--- chromium log (tail) ---");
  console.log(chromiumLogTail());
}
// Chromium's helper processes may still be writing the profile for a moment
// after the browser process exits; a leftover temp folder must not fail the run.
try {
  if (profile) rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
} catch (e) {
  console.log(`could not remove ${profile}: ${e.message}`);
}
console.log(`timings: ${JSON.stringify(timings)}`);
console.log(`${failed.length ? "FAIL" : "PASS"}: ${results.length - failed.length}/${results.length} checks in ${since()}`);
process.exit(failed.length || fatal ? 1 : 0);
