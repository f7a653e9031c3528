  // --- Annotations (browser/annotate.rs): an overlay a person points with.
  // It is made from this isolated world inside a *closed* shadow root on a
  // plain <div> (a page cannot hijack its constructor, read its tree, style
  // what is inside, or call its handlers). Its state lives here, where the
  // page's scripts cannot reach; the daemon reads it by evaluating in this
  // world. Only trusted input (a person, or CDP's Input domain) moves it:
  // every handler drops events a script dispatched. What the page still
  // sees: that the overlay is there (a <div> on <html>) and the raw key and
  // mouse events passing through its own window listeners. ---

  const ANNOT_CSS = `
    :host { all: initial !important; position: fixed !important; inset: 0 !important; z-index: 2147483647 !important;
      display: block !important; visibility: visible !important; opacity: 1 !important; pointer-events: auto !important;
      margin: 0 !important; padding: 0 !important; border: 0 !important; background: transparent !important;
      width: auto !important; height: auto !important; transform: none !important; filter: none !important; clip-path: none !important; }
    * { box-sizing: border-box; font: 13px/1.4 system-ui, sans-serif; }
    .glass { position: fixed; inset: 0; cursor: crosshair; background: transparent; outline: none; }
    .box { position: fixed; pointer-events: none; border: 2px solid #2563eb; background: rgba(37,99,235,.08); border-radius: 2px; }
    .box.pick { border-color: #db2777; background: rgba(219,39,119,.10); }
    .tag { position: absolute; left: -2px; top: -22px; background: #2563eb; color: #fff; padding: 1px 6px; border-radius: 3px;
      white-space: nowrap; max-width: 420px; overflow: hidden; text-overflow: ellipsis; }
    .pick .tag { background: #db2777; }
    .bar { position: fixed; right: 12px; bottom: 12px; width: 340px; max-height: 60vh; overflow: auto; background: #111827; color: #f9fafb;
      border-radius: 8px; padding: 10px; box-shadow: 0 6px 24px rgba(0,0,0,.35); }
    .bar.done { display: none; }
    .bar p { margin: 0 0 8px; }
    .row { display: flex; gap: 6px; align-items: center; margin: 4px 0; }
    .row b { min-width: 18px; color: #f9a8d4; }
    .row span { flex: 0 1 120px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    input { flex: 1; min-width: 0; background: #1f2937; color: #f9fafb; border: 1px solid #374151; border-radius: 4px; padding: 3px 6px; }
    button { background: #374151; color: #f9fafb; border: 0; border-radius: 4px; padding: 4px 10px; cursor: pointer; margin-left: 6px; }
    button.send { background: #db2777; }
    .actions { display: flex; justify-content: flex-end; margin-top: 8px; }
  `;
  const ANNOT_MAX_PICKS = 20;
  const ANNOT_NOTE_MAX = 2000;
  const ANNOT_STYLES = ['display', 'position', 'color', 'background-color', 'font-family', 'font-size', 'font-weight',
    'line-height', 'margin', 'padding', 'border', 'border-radius', 'width', 'height', 'opacity', 'visibility', 'z-index', 'cursor'];
  const TEST_IDS = ['data-testid', 'data-test-id', 'data-test', 'data-qa', 'data-cy'];

  function annotEl(tag, cls, parent) {
    const el = document.createElement(tag);
    if (cls) el.className = cls;
    if (parent) parent.appendChild(el);
    return el;
  }

  // The page element under a point: the first one that is not the overlay,
  // looked for inside open shadow roots too.
  function annotHit(A, x, y) {
    const el = annotDeep(document.elementsFromPoint(x, y).find((e) => e !== A.host), x, y);
    return el && el !== document.documentElement ? el : null;
  }

  // From `el` at a point, down through open shadow roots to the innermost
  // element there.
  function annotDeep(el, x, y) {
    for (let i = 0; el && el.shadowRoot && i < 20; i++) {
      const inner = el.shadowRoot.elementsFromPoint(x, y).find((e) => e !== el && el.shadowRoot.contains(e));
      if (!inner || inner === el) break;
      el = inner;
    }
    return el;
  }

  // For a pick on an <iframe>: the point in the frame's own viewport (its
  // content box), where the daemon looks for the element in that frame.
  function annotInner(el, x, y) {
    if (el.tagName !== 'IFRAME' && el.tagName !== 'FRAME') return null;
    const r = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    const left = r.left + el.clientLeft + parseFloat(cs.paddingLeft || '0');
    const top = r.top + el.clientTop + parseFloat(cs.paddingTop || '0');
    return { x: Math.round(x - left), y: Math.round(y - top) };
  }

  function annotLabel(el) {
    const role = roleOf(el);
    const name = role ? nameOf(el, role) : '';
    return (role || el.tagName.toLowerCase()) + (name ? ' ' + JSON.stringify(clip(name, 60)) : '');
  }

  function annotPlace(box, el) {
    const r = el.getBoundingClientRect();
    box.style.left = r.left + 'px';
    box.style.top = r.top + 'px';
    box.style.width = Math.max(r.width, 2) + 'px';
    box.style.height = Math.max(r.height, 2) + 'px';
  }

  function annotRedraw(A) {
    for (const p of A.picks) {
      const el = p.el.deref();
      if (el && el.isConnected) annotPlace(p.box, el);
      else p.box.style.display = 'none';
    }
  }

  function annotSetState(A, state) {
    if (A.state !== 'open') return;
    A.state = state;
    A.hover.style.display = 'none';
    A.bar.classList.add('done');
    A.glass.style.cursor = 'default';
    for (const p of A.picks) p.note = String(p.input.value || '').slice(0, ANNOT_NOTE_MAX);
  }

  function annotPick(A, el, inner) {
    const known = !inner && A.picks.find((p) => p.el.deref() === el);
    if (known) { known.input.focus(); return; }
    if (A.picks.length >= ANNOT_MAX_PICKS) { A.say.textContent = `at most ${ANNOT_MAX_PICKS} elements per send`; return; }
    const n = A.picks.length + 1;
    const box = annotEl('div', 'box pick', A.root);
    const tag = annotEl('div', 'tag', box);
    const label = annotLabel(el) + (inner ? ' (inside)' : '');
    tag.textContent = n + ' ' + label;
    const row = annotEl('div', 'row', A.list);
    annotEl('b', '', row).textContent = String(n);
    annotEl('span', '', row).textContent = label;
    const input = annotEl('input', '', row);
    input.placeholder = 'note (Enter sends, Esc cancels)';
    input.maxLength = ANNOT_NOTE_MAX;
    A.picks.push({ el: new WeakRef(el), inner, box, input, note: '' });
    annotPlace(box, el);
    A.send.disabled = false;
    A.say.textContent = `${A.picks.length} picked: add a note, pick more, or send`;
    input.focus();
  }

  function annotOpen(o) {
    // One capture per tab runs at a time (the daemon holds to that): an
    // overlay still here was left by one that ended without closing it.
    if (W.annot) annotClose();
    const host = document.createElement('div');
    const root = host.attachShadow({ mode: 'closed' });
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(ANNOT_CSS);
    root.adoptedStyleSheets = [sheet];
    const A = { state: 'open', id: String(o.id || ''), host, root, picks: [], opened: Date.now(), readds: 0 };
    A.glass = annotEl('div', 'glass', root);
    A.glass.tabIndex = -1;
    A.hover = annotEl('div', 'box', root);
    A.hover.style.display = 'none';
    A.hoverTag = annotEl('div', 'tag', A.hover);
    A.bar = annotEl('div', 'bar', root);
    A.say = annotEl('p', '', A.bar);
    A.say.textContent = String(o.prompt || 'webrig: click the elements you mean, add a note to each, then Send.').slice(0, 300);
    A.list = annotEl('div', '', A.bar);
    const actions = annotEl('div', 'actions', A.bar);
    const cancel = annotEl('button', '', actions);
    cancel.textContent = 'Cancel';
    A.send = annotEl('button', 'send', actions);
    A.send.textContent = 'Send';
    A.send.disabled = true;

    const trusted = (e) => e.isTrusted;
    A.glass.addEventListener('mousemove', (e) => {
      if (!trusted(e) || A.state !== 'open') return;
      const el = annotHit(A, e.clientX, e.clientY);
      if (!el) { A.hover.style.display = 'none'; return; }
      A.hover.style.display = 'block';
      A.hoverTag.textContent = annotLabel(el);
      annotPlace(A.hover, el);
    });
    A.glass.addEventListener('click', (e) => {
      if (!trusted(e) || A.state !== 'open') return;
      e.preventDefault();
      e.stopPropagation();
      const el = annotHit(A, e.clientX, e.clientY);
      if (el) annotPick(A, el, annotInner(el, e.clientX, e.clientY));
    });
    // The page below gets no clicks while the overlay is up.
    for (const type of ['mousedown', 'mouseup', 'pointerdown', 'pointerup', 'contextmenu', 'dblclick', 'auxclick']) {
      A.glass.addEventListener(type, (e) => { if (A.state === 'open') { e.preventDefault(); e.stopPropagation(); } });
    }
    cancel.addEventListener('click', (e) => { if (trusted(e)) annotSetState(A, 'cancelled'); });
    A.send.addEventListener('click', (e) => { if (trusted(e) && A.picks.length) annotSetState(A, 'sent'); });
    root.addEventListener('keydown', (e) => {
      if (!trusted(e) || A.state !== 'open') return;
      if (e.key === 'Escape') { e.preventDefault(); annotSetState(A, 'cancelled'); }
      else if (e.key === 'Enter' && !e.shiftKey && A.picks.length) { e.preventDefault(); annotSetState(A, 'sent'); }
      e.stopPropagation();
    });
    // Esc and Enter also work while the focus is on the page itself.
    A.onKey = (e) => {
      if (!trusted(e) || A.state !== 'open' || e.target === A.host) return;
      if (e.key === 'Escape') annotSetState(A, 'cancelled');
      else if (e.key === 'Enter' && A.picks.length) annotSetState(A, 'sent');
    };
    A.onMove = () => { if (A.state !== 'closed') annotRedraw(A); };
    addEventListener('keydown', A.onKey, true);
    addEventListener('scroll', A.onMove, true);
    addEventListener('resize', A.onMove, true);
    // A page that removes the overlay gets it back (a few times), then the
    // capture ends: the daemon reports that the page took it away.
    A.watch = new MutationObserver(() => {
      if (A.state === 'closed' || host.isConnected) return;
      if (++A.readds > 20) { annotSetState(A, 'removed'); return; }
      document.documentElement.appendChild(host);
    });
    A.watch.observe(document, { childList: true, subtree: true });
    W.annot = A;
    document.documentElement.appendChild(host);
    // Above the page's own top layer (modal dialogs, popovers) where it can.
    try { host.popover = 'manual'; host.showPopover(); } catch (e) { /* an old browser: z-index only */ }
    A.glass.focus({ preventScroll: true });
    return { open: true };
  }

  // Takes the overlay down: capture `id`'s only, when an id is given (a
  // late close of an earlier capture leaves a newer one alone).
  function annotClose(id) {
    const A = W.annot;
    if (!A || (id && A.id !== id)) return { closed: false };
    A.state = A.state === 'open' ? 'cancelled' : A.state;
    A.closed = true;
    A.watch.disconnect();
    removeEventListener('keydown', A.onKey, true);
    removeEventListener('scroll', A.onMove, true);
    removeEventListener('resize', A.onMove, true);
    A.host.remove();
    W.annot = null;
    return { closed: true };
  }

  // A locator's string with `value` quoted the way browser/locate parses it.
  const annotQuote = (s) => '"' + s.replace(/[\\"]/g, '\\$&') + '"';

  // Selector candidates for `el`, each with how many visible elements it
  // matches now; one that matches several is narrowed with `>> nth=`.
  // Counting walks the page: past `until` (a huge page, many picks) the
  // rest are given uncounted (matches 0, half the confidence).
  function annotCandidates(el, role, name, until) {
    const out = [];
    const add = (kind, value, confidence, parts) => {
      if (performance.now() > until) {
        out.push({ kind, value, confidence: Math.round(confidence * 50) / 100, matches: 0 });
        return;
      }
      let found;
      try { found = runParts(parts, { visited: 0 }).filter(visibleEl); } catch (e) { return; }
      const at = found.indexOf(el);
      if (at < 0) return;
      if (found.length === 1) out.push({ kind, value, confidence, matches: 1 });
      else out.push({ kind, value: value + ' >> nth=' + at, confidence: Math.round(confidence * 45) / 100, matches: found.length });
    };
    for (const a of TEST_IDS) {
      const v = el.getAttribute(a);
      if (!v || v.length > 200) continue;
      if (a === 'data-testid') add('testid', 'testid=' + annotQuote(v), 0.98, [{ engine: 'testid', text: v, exact: true }]);
      else {
        const sel = '[' + a + '=' + annotQuote(v) + ']';
        add('testid', 'css=' + sel, 0.96, [{ engine: 'css', selector: sel }]);
      }
    }
    if (role && role !== 'generic' && name && name.length <= 200) {
      add('role', 'role=' + role + '[name=' + annotQuote(name) + ']', 0.9,
        [{ engine: 'role', role, name: { text: name, exact: true }, states: [] }]);
    }
    if (el.id && el.id.length <= 100 && !/^\d|[:]\d/.test(el.id)) {
      const sel = '#' + CSS.escape(el.id);
      add('css', sel, 0.85, [{ engine: 'css', selector: sel }]);
    }
    const path = annotPath(el);
    if (path) add('css', path, 0.6, [{ engine: 'css', selector: path }]);
    const text = norm(textOf(el));
    if (text && text.length <= 80) add('text', 'text=' + annotQuote(text), 0.7, [{ engine: 'text', text, exact: true }]);
    out.sort((a, b) => b.confidence - a.confidence);
    return out;
  }

  // A CSS path from the nearest ancestor with an id (or the root) down to
  // `el`, by tag and position among its siblings of that tag.
  function annotPath(el) {
    const steps = [];
    for (let n = el; n && n.nodeType === 1 && steps.length < 12; n = n.parentElement) {
      if (n !== el && n.id && !/^\d/.test(n.id)) { steps.unshift('#' + CSS.escape(n.id)); break; }
      const tag = n.tagName.toLowerCase();
      if (tag === 'html') { steps.unshift('html'); break; }
      const p = n.parentElement;
      const same = p ? [...p.children].filter((c) => c.tagName === n.tagName) : [n];
      steps.unshift(same.length > 1 ? `${tag}:nth-of-type(${same.indexOf(n) + 1})` : tag);
    }
    return steps.join(' > ');
  }

  function annotItem(p, st, until) {
    const el = p.el.deref();
    if (!el || !el.isConnected) return { gone: true, note: p.note };
    const role = roleOf(el);
    const refRole = role || 'clickable';
    const ref = refFor(el, refRole + '|' + nameOf(el, refRole), st);
    const name = role ? nameOf(el, role) : '';
    const r = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    const styles = {};
    for (const k of ANNOT_STYLES) styles[k] = cs.getPropertyValue(k);
    const attrs = {};
    for (const a of ['id', 'class', 'href', 'type', 'name', 'placeholder', 'aria-label', ...TEST_IDS]) {
      const v = el.getAttribute(a);
      if (v !== null) attrs[a] = clip(v, 300);
    }
    const out = {
      ref: '@' + W.prefix + 'e' + ref,
      tag: el.tagName.toLowerCase(),
      role: role || null,
      name: clip(name, 300),
      text: clip(norm(textOf(el)), 500),
      rect: { x: Math.round(r.left), y: Math.round(r.top), width: Math.round(r.width), height: Math.round(r.height) },
      styles,
      attributes: attrs,
      candidates: annotCandidates(el, role, name, until),
      note: p.note,
    };
    // A pick inside a frame: the daemon finds the element there (this
    // item, the <iframe>'s, stands when it cannot).
    if (p.inner) {
      W.annotFrames = W.annotFrames || [];
      out.inner = { index: W.annotFrames.push(el) - 1, x: p.inner.x, y: p.inner.y };
    }
    return out;
  }

  Object.assign(lib, {
    annotOpen,
    annotClose,
    // In a child frame: the element at a point of this frame's viewport,
    // as an item (refs `@f<N>e<M>` from o.nextRef on).
    annotAt(o) {
      W.prefix = o.prefix;
      const el = annotDeep(document.elementFromPoint(o.x, o.y), o.x, o.y);
      if (!el || el === document.documentElement || el === document.body) return { none: true };
      const st = { next: o.nextRef };
      const item = annotItem({ el: new WeakRef(el), note: '' }, st, performance.now() + (o.countMs || 1000));
      return { item, nextRef: st.next, url: location.href };
    },
    // Where the capture is: open, sent, cancelled, removed (or none).
    annotState() {
      const A = W.annot;
      if (!A) return { state: 'none' };
      if (A.state === 'open' && !A.host.isConnected && A.readds > 20) annotSetState(A, 'removed');
      return { state: A.state, picks: A.picks.length };
    },
    // The picked elements, each with a ref (refs as a snapshot gives them:
    // numbers from o.nextRef on, an element that has one keeps it).
    annotCollect(o) {
      const A = W.annot;
      if (!A) return { none: true };
      W.prefix = o.prefix;
      const st = { next: o.nextRef };
      W.annotFrames = [];
      const until = performance.now() + (o.countMs || 1500);
      const items = A.picks.map((p) => annotItem(p, st, until));
      return { items, nextRef: st.next, url: location.href, title: document.title,
        viewport: { width: innerWidth, height: innerHeight, scrollX: Math.round(scrollX), scrollY: Math.round(scrollY) } };
    },
  });
