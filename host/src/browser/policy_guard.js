// webrig's domain-policy guard, run at the start of every document of a
// session with a policy (Page.addScriptToEvaluateOnNewDocument). Request
// interception holds every HTTP request; this covers what it cannot see
// from the page: WebSocket connections, and (on the user's browser, where
// no browser-wide guard sees a new window's first request) popups and
// link clicks to a refused host. __LAYERS__ is the policy, as data; __NO_WORKERS__ true on the user's
// browser.
(() => {
  const layers = __LAYERS__;
  const W = globalThis.WebSocket;
  if (!W || W.__webrigGuard) return;
  // One rule: [host, subdomains, port]; ["", true, null] is `*`.
  const hit = (r, h, p) =>
    (r[0] === '' && r[1] ? h !== '' : r[1] ? h.length > r[0].length + 1 && h.endsWith('.' + r[0]) : h === r[0]) &&
    (r[2] === null || r[2] === p);
  const ok = (u) => {
    const h = u.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
    const p = Number(u.port) || (u.protocol === 'wss:' || u.protocol === 'https:' ? 443 : 80);
    return layers.every((l) => !l.block.some((r) => hit(r, h, p)) && (l.allow.length === 0 || l.allow.some((r) => hit(r, h, p))));
  };
  const refused = (raw) => {
    try {
      const u = new URL(raw, location.href);
      return /^(https?|wss?|ftp):$/.test(u.protocol) && !ok(u);
    } catch (e) {
      return false;
    }
  };
  const say = (what) => console.warn('webrig: ' + what + " was refused by the session's domain policy");
  const G = function WebSocket(url, protocols) {
    if (!new.target) throw new TypeError("Failed to construct 'WebSocket': Please use the 'new' operator");
    if (refused(String(url))) {
      say('a WebSocket to ' + url);
      throw new DOMException('webrig: ' + url + " is refused by the session's domain policy", 'SecurityError');
    }
    return arguments.length > 1 ? new W(url, protocols) : new W(url);
  };
  // No way back to the unguarded constructor: not through the prototype's
  // `constructor`, nor through G's own prototype chain (the constants are
  // copied instead).
  G.prototype = W.prototype;
  Object.defineProperty(W.prototype, 'constructor', { value: G, writable: false, configurable: false });
  for (const k of ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED']) {
    Object.defineProperty(G, k, { value: W[k], enumerable: true });
  }
  Object.defineProperty(G, '__webrigGuard', { value: true });
  Object.defineProperty(globalThis, 'WebSocket', { value: G, writable: false, configurable: false, enumerable: false });
  const open = globalThis.open;
  if (typeof open === 'function') {
    Object.defineProperty(globalThis, 'open', {
      value: function (url, ...rest) {
        if (url !== undefined && url !== '' && refused(String(url))) {
          say('a popup to ' + url);
          return null;
        }
        return open.call(this, url, ...rest);
      },
      writable: false,
      configurable: false,
    });
  }
  const stop = (e, raw) => {
    if (raw && refused(raw)) {
      e.preventDefault();
      e.stopImmediatePropagation();
      say('going to ' + raw);
    }
  };
  // On the user's browser no guard sees a service worker's requests: a
  // page of a guarded session registers none (__NO_WORKERS__).
  const sw = globalThis.navigator && navigator.serviceWorker;
  if (__NO_WORKERS__ && sw && sw.register) {
    const refuse = () => {
      say('registering a service worker');
      return Promise.reject(new DOMException("webrig: no service workers under this session's domain policy", 'SecurityError'));
    };
    Object.defineProperty(Object.getPrototypeOf(sw), 'register', { value: refuse, writable: false, configurable: false });
  }
  if (globalThis.addEventListener && globalThis.document) {
    const link = (e) => {
      const a = e.target && e.target.closest && e.target.closest('a[href], area[href]');
      if (a) stop(e, a.href);
    };
    addEventListener('click', link, true);
    addEventListener('auxclick', link, true);
    addEventListener('submit', (e) => e.target && stop(e, e.target.action), true);
  }
})();
