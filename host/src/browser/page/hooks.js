// webrig's hooks in the page's own world, installed before the page's
// scripts run (Page.addScriptToEvaluateOnNewDocument). Two things the
// isolated world cannot see for itself:
//  - which elements the page gave a click listener (addEventListener for
//    click, mousedown, pointerdown…, or an onclick property): the snapshot
//    gives them refs even when nothing else marks them clickable;
//  - the short timers (≤ 300 ms) an action sets off, directly or from one
//    another's callbacks: settling waits for them (a hover menu that opens
//    after a delay).
// The two worlds share only the DOM, so they talk in DOM events: the
// isolated world asks with an event on `document`, this answers by marking
// each newly listened element with an event of its own, or with a reply
// event whose detail is a JSON string.
//
// Everything here is visible to the page and can be faked by it. It holds
// nothing secret, and the most a page gains by faking it is extra refs or a
// settle that waits until its bound.
(() => {
  const KEY = Symbol.for('webrig.hooks');
  // Taken now: the page may replace the globals later.
  const invoke = Reflect.apply;
  const Ref = WeakRef;
  const Custom = CustomEvent;
  if (window[KEY]) return;
  Object.defineProperty(window, KEY, { value: true });

  const ASK = '__webrig_hooks_ask';
  const MARK = '__webrig_hooks_mark';
  const WATCH = '__webrig_hooks_watch';
  const TIMERS = '__webrig_hooks_timers';
  const REPLY = '__webrig_hooks_reply';
  const CLICKY = new Set(['click', 'dblclick', 'auxclick', 'mousedown', 'mouseup', 'pointerdown', 'pointerup',
    'touchstart', 'touchend']);
  const SHORT_MS = 300;
  const MAX_FRESH = 100000;

  const seen = new WeakSet();
  let fresh = [];
  function note(target) {
    try {
      if (!target || target.nodeType !== 1 || seen.has(target)) return;
      const tag = target.tagName;
      // Listeners on the page's roots are delegation, not a target.
      if (tag === 'HTML' || tag === 'BODY') return;
      seen.add(target);
      if (fresh.length < MAX_FRESH) fresh.push(new Ref(target));
    } catch (_) { /* a hostile `this` */ }
  }

  const proto = EventTarget.prototype;
  const add = proto.addEventListener;
  // A Proxy keeps the function's name, length and native-looking source.
  // Event types each element listens for: a framework's root listens for
  // dozens (React delegates every event to its container), a control for a
  // few. Roots are not click targets.
  const types = new WeakMap();
  const ROOT_TYPES = 8;
  proto.addEventListener = new Proxy(add, {
    apply(f, self, args) {
      try {
        if (self && self.nodeType === 1) {
          let t = types.get(self);
          if (!t) types.set(self, (t = new Set()));
          if (t.size <= ROOT_TYPES) t.add(String(args[0]));
        }
      } catch (_) { /* a hostile `this` */ }
      if (CLICKY.has(args[0])) note(self);
      return invoke(f, self, args);
    },
  });
  for (const P of [HTMLElement.prototype, SVGElement.prototype]) {
    for (const name of ['onclick', 'onmousedown', 'onpointerdown']) {
      const d = Object.getOwnPropertyDescriptor(P, name);
      if (!d || !d.set) continue;
      Object.defineProperty(P, name, {
        ...d,
        set: new Proxy(d.set, {
          apply(f, self, args) {
            if (args[0]) note(self);
            return invoke(f, self, args);
          },
        }),
      });
    }
  }

  // Marks, with one event each, the listened elements now in a document
  // (the rest wait for a later ask: a menu built before it is attached).
  add.call(document, ASK, () => {
    const keep = [];
    for (const w of fresh) {
      const el = w.deref();
      if (!el) continue;
      const t = types.get(el);
      if (t && t.size > ROOT_TYPES) continue;
      if (el.isConnected) el.dispatchEvent(new Custom(MARK, { composed: true }));
      else keep.push(w);
    }
    fresh = keep;
  });

  // Short timers: counted from an action's start (WATCH with detail "on")
  // until its settle ends ("off"), and in the callbacks of counted timers.
  // A callback the page scheduled before (a poll, a clock that re-arms
  // itself) is not the action's doing and is not waited for.
  let watching = false;
  const known = new WeakSet();
  let inside = null; // the callback of the counted timer now running
  const due = new Map(); // timer id -> when it fires (performance.now())
  const setT = window.setTimeout;
  const clearT = window.clearTimeout;
  window.setTimeout = new Proxy(setT, {
    apply(f, self, args) {
      const [cb, ms] = args;
      const delay = Math.max(0, Number(ms) || 0);
      if (typeof cb !== 'function') return invoke(f, self, args);
      if (!(watching || inside) || delay > SHORT_MS || known.has(cb)) {
        known.add(cb);
        return invoke(f, self, args);
      }
      known.add(cb);
      let id;
      const counted = function (...a) {
        due.delete(id);
        const was = inside;
        inside = cb;
        try { return invoke(cb, this, a); } finally { inside = was; }
      };
      id = invoke(f, self, [counted, ms, ...args.slice(2)]);
      due.set(id, performance.now() + delay);
      return id;
    },
  });
  window.clearTimeout = new Proxy(clearT, {
    apply(f, self, args) {
      due.delete(args[0]);
      return invoke(f, self, args);
    },
  });
  add.call(document, WATCH, (e) => {
    watching = e.detail === 'on';
    if (watching) due.clear();
  });
  // Replies with how long until the last counted timer fires (-1: none).
  add.call(document, TIMERS, () => {
    let last = -1;
    const now = performance.now();
    for (const t of due.values()) last = Math.max(last, t - now);
    document.dispatchEvent(new Custom(REPLY, { detail: String(last) }));
  });
})();
