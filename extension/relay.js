// The WebSocket half of the relay (PROTOCOL.md, "Connection" and
// "Handshake"): one socket to ws://127.0.0.1:<port>/extension, subprotocol
// "webrig.v2"; the daemon proves it holds the token before this side proves
// it does (HMAC-SHA256 challenge-response; the token never crosses the
// socket), then hello, ping every 20 s, close after 45 s of silence,
// reconnect with backoff 0.5 s → 30 s (±20 % jitter), one connect in flight
// at a time. Until the daemon's proof checks out nothing but the challenge
// is sent and nothing received is acted on. Requests are validated here
// (frame, id, method, params) and handed to `onRequest`; nothing from the
// daemon is ever evaluated.

export const PROTOCOL = "webrig.v2";
/** The daemon has this long after the socket opened to prove itself and say ready. */
export const HANDSHAKE_MS = 10_000;
const NONCE_BYTES = 32;
export const PING_MS = 20_000;
export const SILENCE_MS = 45_000;
export const BACKOFF_MIN_MS = 500;
export const BACKOFF_MAX_MS = 30_000;
export const JITTER = 0.2;
/** A socket still CONNECTING after this long is given up. */
export const CONNECT_TIMEOUT_MS = 10_000;
/** Largest text frame accepted from the daemon (characters). */
export const MAX_FRAME_CHARS = 64 * 1024 * 1024;
/** Requests being worked on at once; more are answered with an error. */
export const MAX_IN_FLIGHT = 256;
/** Bytes queued on the socket before events count as overflowing. */
export const MAX_BUFFERED_BYTES = 32 * 1024 * 1024;
/** A connection open at least this long resets the backoff. */
const HEALTHY_MS = 5_000;

/** An error answered to the daemon as `{"error": {code, message}}`. */
export class RelayError extends Error {
  constructor(code, message, extra) {
    super(message);
    this.code = code;
    this.extra = extra;
  }
}

export const isObject = (v) =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** A port as the popup stores it: an integer in 1..65535. */
export const validPort = (p) => Number.isInteger(p) && p >= 1 && p <= 65535;

/** The token as the daemon makes it (and as pairing hands it over). */
export const validToken = (t) =>
  typeof t === "string" && /^[A-Za-z0-9._~-]{8,512}$/.test(t);

const hex = (bytes) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
const isHex64 = (s) => typeof s === "string" && /^[0-9a-f]{64}$/.test(s);
function unhex(s) {
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** A fresh nonce: 32 random bytes in lower hex. */
export function nonce() {
  return hex(crypto.getRandomValues(new Uint8Array(NONCE_BYTES)));
}

/**
 * The HMAC-SHA256 key of `token` (WebCrypto; not extractable).
 * Messages: `webrig.v2 <daemon|extension> <port> <first nonce> <second nonce>`.
 */
export async function proofKey(token) {
  return crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(token),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign", "verify"],
  );
}

const proofMessage = (label, port, first, second) =>
  new TextEncoder().encode(`webrig.v2 ${label} ${port} ${first} ${second}`);

/** Whether `proof` is the daemon's for (ne, nd): WebCrypto's verify, constant time. */
export async function daemonProofOk(key, port, ne, nd, proof) {
  if (!isHex64(nd) || !isHex64(proof)) return false;
  return crypto.subtle.verify("HMAC", key, unhex(proof), proofMessage("daemon", port, ne, nd));
}

/** This side's proof, sent only after the daemon's checked out. */
export async function extensionProof(key, port, nd, ne) {
  return hex(new Uint8Array(await crypto.subtle.sign("HMAC", key, proofMessage("extension", port, nd, ne))));
}

export function backoffDelay(attempt, random = Math.random) {
  const base = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.min(attempt, 16));
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}

/**
 * State names shown by the popup: "unpaired" (no token), "stopped" (the
 * user pressed Stop), "connecting", "connected", "waiting" (backoff before
 * the next try).
 */
export class Relay {
  /**
   * @param {object} hooks
   * @param {(send: (obj: object) => boolean) => void} hooks.onOpen  after the socket opened (send hello here)
   * @param {(info: {code: number, reason: string, wasOpen: boolean}) => void} hooks.onClose
   * @param {(method: string, params: object) => Promise<{result: object, after?: () => void}>} hooks.onRequest
   * @param {() => void} [hooks.onChange]  the state changed (for the popup)
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.port = 9377;
    this.token = null;
    this.enabled = false;
    this.ws = null;
    /** The daemon proved itself and said ready on this socket. */
    this.authed = false;
    this.handshakeTimer = null;
    this.gen = 0; // bumps per socket; answers for an older socket are dropped
    this.attempts = 0;
    this.retryTimer = null;
    this.retryAt = 0;
    this.connectTimer = null;
    this.pingTimer = null;
    this.silenceTimer = null;
    this.lastRx = 0;
    this.openedAt = 0;
    this.inFlight = 0;
    this.lastError = "";
    this.reconnectNow = false;
    this.stats = { connects: 0, opened: 0, requests: 0, eventsDropped: 0 };
  }

  get state() {
    if (!this.token) return "unpaired";
    if (!this.enabled) return "stopped";
    if (this.ws && this.ws.readyState === WebSocket.OPEN && this.authed) return "connected";
    if (this.ws) return "connecting";
    return "waiting";
  }

  get connected() {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN && this.authed;
  }

  configure({ port, token }) {
    this.port = validPort(port) ? port : 9377;
    this.token = validToken(token) ? token : null;
  }

  /** Enable and connect now (a fresh pairing or the popup's Connect). */
  start() {
    this.enabled = true;
    this.attempts = 0;
    this.lastError = "";
    if (this.ws) {
      // A socket with the old token/port: close it, connect once it is gone
      // (the daemon allows one connection per browser).
      this.reconnectNow = true;
      this.closeSocket(1000, "reconnecting");
    } else {
      this.connect();
    }
  }

  /** Disable: close the socket and stop reconnecting until start(). */
  stop(reason = "stopped by the user") {
    this.enabled = false;
    this.clearRetry();
    this.closeSocket(1000, reason);
    this.changed();
  }

  /** The alarm's nudge: connect if idle (skipping a pending backoff). */
  kick() {
    if (this.enabled && this.token && !this.ws) this.connect();
  }

  connect() {
    if (!this.enabled || !this.token || this.ws) return; // one in flight
    this.clearRetry();
    const gen = ++this.gen;
    this.stats.connects++;
    let ws;
    try {
      // Only the protocol name: the token is never sent, whoever answers.
      ws = new WebSocket(`ws://127.0.0.1:${this.port}/extension`, [PROTOCOL]);
    } catch (e) {
      this.lastError = `cannot open the socket: ${e?.message ?? e}`;
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    let wasOpen = false;
    this.connectTimer = setTimeout(() => {
      if (this.ws === ws && ws.readyState === WebSocket.CONNECTING) {
        this.lastError = "the daemon did not answer in time";
        ws.close();
        this.socketGone(ws, gen, { code: 1006, reason: "connect timeout", wasOpen: false });
      }
    }, CONNECT_TIMEOUT_MS);
    const port = this.port;
    const token = this.token;
    // The handshake's state for this socket: the nonce we sent, and whether
    // the daemon's proof checked out.
    const hs = { ne: null, proved: false, busy: false };
    ws.onopen = () => {
      if (this.ws !== ws) return;
      clearTimeout(this.connectTimer);
      if (ws.protocol !== PROTOCOL) {
        this.lastError = `the daemon chose subprotocol ${JSON.stringify(ws.protocol)}, not ${PROTOCOL}`;
        this.closeSocket(4002, "wrong subprotocol");
        return;
      }
      hs.ne = nonce();
      this.handshakeTimer = setTimeout(() => {
        if (this.ws === ws && !this.authed) {
          this.lastError = "the daemon did not prove itself in time";
          this.closeSocket(4008, "handshake timeout");
        }
      }, HANDSHAKE_MS);
      this.sendRaw(ws, { type: "challenge", nonce: hs.ne });
      this.changed();
    };
    const onReady = () => {
      wasOpen = true;
      this.authed = true;
      clearTimeout(this.handshakeTimer);
      this.openedAt = Date.now();
      this.lastRx = Date.now();
      this.lastError = "";
      this.stats.opened++;
      this.pingTimer = setInterval(() => this.send({ type: "ping" }), PING_MS);
      this.silenceTimer = setInterval(() => {
        if (Date.now() - this.lastRx > SILENCE_MS) {
          this.lastError = "no word from the daemon for 45 s";
          this.closeSocket(4000, "silence");
        }
      }, 1_000);
      try {
        this.hooks.onOpen((obj) => this.send(obj));
      } catch (e) {
        console.warn("webrig: onOpen failed", e);
      }
      this.changed();
    };
    // Before ready: the daemon's proof, then ready; anything else (a request,
    // a second proof, a frame while checking) ends the socket unanswered.
    const handshake = async (data) => {
      let msg;
      try {
        msg = typeof data === "string" && data.length <= 4096 ? JSON.parse(data) : null;
      } catch {
        msg = null;
      }
      const refuse = (why) => {
        this.lastError = why;
        this.closeSocket(4001, "handshake failed");
      };
      if (hs.busy || !isObject(msg)) return refuse("the daemon broke the handshake");
      if (!hs.proved && msg.type === "daemon-proof") {
        hs.busy = true;
        let ok = false;
        let key;
        try {
          key = await proofKey(token);
          ok = await daemonProofOk(key, port, hs.ne, msg.nonce, msg.proof);
        } catch (e) {
          console.warn("webrig: cannot check the daemon's proof", e);
        }
        hs.busy = false;
        if (this.ws !== ws) return;
        if (!ok) {
          return refuse(
            `whatever answers on port ${port} could not prove it is this webrig daemon (another program on the port, or the token changed: pair again)`,
          );
        }
        hs.proved = true;
        this.sendRaw(ws, { type: "extension-proof", proof: await extensionProof(key, port, msg.nonce, hs.ne) });
        return;
      }
      if (hs.proved && msg.type === "ready") return onReady();
      return refuse("the daemon broke the handshake");
    };
    ws.onmessage = (ev) => {
      if (this.ws !== ws) return;
      if (!this.authed) {
        handshake(ev.data);
        return;
      }
      this.lastRx = Date.now();
      this.receive(ev.data, gen);
    };
    ws.onerror = () => {
      // Chrome hides why (a 401/403/409 refusal looks like a network error);
      // close follows.
      if (this.ws === ws && !wasOpen) this.lastError = "the daemon refused or is not running";
    };
    ws.onclose = (ev) => {
      if (this.ws === ws && !wasOpen && ev.reason) {
        this.lastError = `the daemon refused: ${ev.code} ${String(ev.reason).slice(0, 200)}`;
      }
      this.socketGone(ws, gen, { code: ev.code, reason: ev.reason, wasOpen });
    };
    this.changed();
  }

  socketGone(ws, gen, info) {
    if (this.ws !== ws) return;
    this.ws = null;
    this.authed = false;
    clearTimeout(this.connectTimer);
    clearTimeout(this.handshakeTimer);
    clearInterval(this.pingTimer);
    clearInterval(this.silenceTimer);
    this.inFlight = 0; // answers of this socket are dropped (gen changed below)
    this.gen++;
    if (info.wasOpen) {
      if (Date.now() - this.openedAt >= HEALTHY_MS) this.attempts = 0;
      if (!this.lastError) {
        this.lastError = `connection closed (${info.code}${info.reason ? ` ${info.reason}` : ""})`;
      }
    } else if (!this.lastError) {
      this.lastError = "the daemon refused or is not running";
    }
    try {
      this.hooks.onClose(info);
    } catch (e) {
      console.warn("webrig: onClose failed", e);
    }
    if (this.reconnectNow) {
      this.reconnectNow = false;
      this.connect();
    } else {
      this.scheduleRetry();
    }
    this.changed();
  }

  closeSocket(code, reason) {
    const ws = this.ws;
    if (!ws) return;
    // Open means proved: a socket closed during the handshake must not
    // reset the backoff, or a stranger on the port would get a retry every 0.5 s.
    const wasOpen = ws.readyState === WebSocket.OPEN && this.authed;
    try {
      ws.close(code, reason);
    } catch {
      ws.close();
    }
    // Do not wait for the closing handshake: a daemon that stopped answering
    // would keep us from reconnecting.
    this.socketGone(ws, this.gen, { code, reason, wasOpen });
  }

  clearRetry() {
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.retryAt = 0;
  }

  scheduleRetry() {
    if (!this.enabled || !this.token || this.ws || this.retryTimer) return;
    const delay = backoffDelay(this.attempts++);
    this.retryAt = Date.now() + delay;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.retryAt = 0;
      this.connect();
    }, delay);
  }

  /** A handshake message on `ws` (the only frames sent before ready). */
  sendRaw(ws, obj) {
    if (this.ws !== ws || ws.readyState !== WebSocket.OPEN) return false;
    ws.send(JSON.stringify(obj));
    return true;
  }

  /** Sends one JSON object; false when there is no proved, open socket. */
  send(obj) {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN || !this.authed) return false;
    let text;
    try {
      text = JSON.stringify(obj);
    } catch (e) {
      console.warn("webrig: cannot serialise a message", e);
      return false;
    }
    ws.send(text);
    return true;
  }

  /**
   * Sends an event unless the socket's queue is over MAX_BUFFERED_BYTES: a
   * daemon that does not read must not make the browser hold gigabytes, and
   * silently dropping CDP events would leave it with a wrong picture, so the
   * connection is closed (the daemon re-attaches after the reconnect).
   */
  sendEvent(obj) {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN || !this.authed) {
      this.stats.eventsDropped++;
      return false;
    }
    if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      this.stats.eventsDropped++;
      this.lastError = "the daemon is not reading; event backlog over 32 MiB";
      this.closeSocket(4008, "event backlog");
      return false;
    }
    return this.send(obj);
  }

  receive(data, gen) {
    if (typeof data !== "string") return; // text frames only
    if (data.length > MAX_FRAME_CHARS) {
      console.warn(`webrig: ignored a ${data.length}-character frame`);
      return;
    }
    let msg;
    try {
      msg = JSON.parse(data);
    } catch {
      console.warn("webrig: ignored a frame that is not JSON");
      return;
    }
    if (!isObject(msg)) return;
    if (msg.type === "pong" || msg.type === "ping") {
      if (msg.type === "ping") this.send({ type: "pong" });
      return;
    }
    if (!("id" in msg)) return; // unknown message kinds are ignored
    const id = msg.id;
    if (!Number.isSafeInteger(id)) {
      console.warn("webrig: ignored a request without an integer id");
      return;
    }
    const fail = (code, message) => this.answer(gen, { id, error: { code, message } });
    if (typeof msg.method !== "string" || msg.method.length === 0 || msg.method.length > 64) {
      fail("failed", "method must be a string of 1-64 characters");
      return;
    }
    if (msg.params !== undefined && msg.params !== null && !isObject(msg.params)) {
      fail("failed", "params must be an object");
      return;
    }
    if (this.inFlight >= MAX_IN_FLIGHT) {
      fail("failed", `too many requests in flight (limit ${MAX_IN_FLIGHT})`);
      return;
    }
    this.inFlight++;
    this.stats.requests++;
    let run;
    try {
      run = Promise.resolve(this.hooks.onRequest(msg.method, msg.params ?? {}));
    } catch (e) {
      run = Promise.reject(e);
    }
    run.then(
      (out) => {
        if (gen === this.gen) this.inFlight--;
        this.answer(gen, { id, result: isObject(out?.result) ? out.result : {} });
        if (typeof out?.after === "function") {
          try {
            out.after();
          } catch (e) {
            console.warn("webrig: after-answer hook failed", e);
          }
        }
      },
      (e) => {
        if (gen === this.gen) this.inFlight--;
        const error = {
          code: e instanceof RelayError ? e.code : "failed",
          message: String(e?.message ?? e).slice(0, 2000),
        };
        if (e instanceof RelayError && isObject(e.extra)) Object.assign(error, e.extra);
        this.answer(gen, { id, error });
      },
    );
  }

  answer(gen, obj) {
    if (gen !== this.gen) return; // the socket it came on is gone
    this.send(obj);
  }

  changed() {
    try {
      this.hooks.onChange?.();
    } catch {
      /* the popup may be closed */
    }
  }

  status() {
    return {
      state: this.state,
      port: this.port,
      paired: !!this.token,
      lastError: this.lastError,
      connectedSince: this.connected ? this.openedAt : 0,
      retryInMs: this.retryAt ? Math.max(0, this.retryAt - Date.now()) : 0,
      attempts: this.attempts,
      stats: { ...this.stats, inFlight: this.inFlight },
    };
  }
}
