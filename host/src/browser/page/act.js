  // --- Acting: hit tests, actionability (scrolling into view at once), the
  // hit-target interceptor, form calls and their read-back. ---

  // The parent in the composed tree, the one events bubble through: a
  // slotted node's slot, a shadow root's host.
  const parentOf = (n) => n.assignedSlot || n.parentElement || (n.parentNode && n.parentNode.host) || null;
  function contains(a, b) {
    for (let n = b; n; n = parentOf(n)) if (n === a) return true;
    return false;
  }
  // Elements that take a click themselves: a click on any part of one
  // (a span in a button, a drawn box in a label) is a click on it.
  const CLICK_TAGS = new Set(['BUTTON', 'SUMMARY', 'LABEL', 'INPUT', 'SELECT', 'TEXTAREA', 'OPTION']);
  const CLICK_ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'option', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'treeitem', 'combobox', 'slider', 'spinbutton', 'textbox', 'searchbox']);
  // (A bare tabindex does not count: dialogs and scroll boxes have one, and a
  // cover inside them is still a cover.)
  function takesClicks(el) {
    return CLICK_TAGS.has(el.tagName) || ((el.tagName === 'A' || el.tagName === 'AREA') && el.hasAttribute('href')) ||
      CLICK_ROLES.has(roleOf(el));
  }
  // Styled as clickable, like the snapshot's `clickable`: cursor: pointer
  // where its parent's is not (the cursor is inherited).
  function pointerOrigin(el) {
    if (getComputedStyle(el).cursor !== 'pointer') return false;
    const p = parentOf(el);
    return !p || p.nodeType !== 1 || getComputedStyle(p).cursor !== 'pointer';
  }
  // What a click at `el` activates: the nearest element on the composed
  // path that takes clicks, is styled as clickable or has a click listener
  // (a label stands for its control). Null when nothing on the path is one.
  function activated(el) {
    for (let n = el; n; n = parentOf(n)) {
      if (n.nodeType !== 1) continue;
      if (takesClicks(n)) return n.tagName === 'LABEL' && n.control ? n.control : n;
      if (pointerOrigin(n) || W.listened.has(n)) return n;
    }
    return null;
  }
  // Whether a click that lands on `hit` is a click on `el` (aimed at `aim`,
  // its label when the input itself is not drawn): the hit is inside the
  // target, or both activate the same control (Playwright retargets the
  // same way). Anything else would take the click instead: a cover.
  function reaches(el, aim, hit) {
    if (contains(aim, hit) || contains(el, hit) || (hit.control && hit.control === el)) return true;
    const mine = activated(el);
    return mine !== null && activated(hit) === mine;
  }
  function deepHit(doc, x, y) {
    let h = doc.elementFromPoint(x, y);
    while (h && h.shadowRoot) {
      const inner = h.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === h) break;
      h = inner;
    }
    return h;
  }
  // The nearest thing an agent would recognize: a ref'd element, a role, a tag.
  function describeHit(el) {
    for (let n = el; n && n.nodeType === 1; n = n.parentElement || (n.getRootNode() && n.getRootNode().host)) {
      const r = W.refOf.get(n);
      if (r && W.byRef.has(r.ref)) return describe(n);
    }
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      const role = roleOf(n);
      if (role && role !== 'paragraph') return describe(n);
      // A plain container (a cookie banner, a modal backdrop): name it by
      // what an agent could press in it.
      const inner = n.querySelector('button, a[href], [role=button], input[type=submit]');
      if (inner && n !== document.body && n !== document.documentElement) {
        const tag = n.tagName.toLowerCase() + (n.id ? '#' + n.id : '');
        return tag + ' with ' + describe(inner);
      }
    }
    return describe(el);
  }
  function pointIn(el) {
    for (const b of el.getClientRects()) {
      if (b.width > 0 && b.height > 0) {
        const x = Math.min(Math.max(b.left + b.width / 2, 0), innerWidth - 1);
        const y = Math.min(Math.max(b.top + b.height / 2, 0), innerHeight - 1);
        return { x, y };
      }
    }
    return null;
  }
  // Animation-frame and timer ids count up per document, across worlds (the
  // page's and this one): the gap between two of ours, less one, is how many
  // frames or timers the page asked for in between. Our own waits record
  // their ids too, so they are not counted as the page's.
  const frame = () => new Promise((r) => { W.frameId = requestAnimationFrame(() => r()); });
  const sleep = (ms) => new Promise((r) => { W.timerId = setTimeout(r, ms); });
  // A frame, or `ms` when none comes (a page in the background draws none).
  const frameWithin = (ms) => new Promise((r) => {
    const t = setTimeout(r, ms);
    W.timerId = t;
    W.frameId = requestAnimationFrame(() => { clearTimeout(t); r(); });
  });
  const frameProbe = () => { const id = requestAnimationFrame(() => {}); cancelAnimationFrame(id); return id; };
  const timerProbe = () => { const id = setTimeout(() => {}, 0); clearTimeout(id); return id; };

  // Animated properties that repaint without moving any other box.
  const PAINT_ONLY = new Set(['opacity', 'transform', 'translate', 'rotate', 'scale', 'filter', 'backdrop-filter',
    'box-shadow', 'text-shadow', 'background-position', 'background-image', 'clip-path', 'visibility',
    'stroke-dashoffset', 'stroke-dasharray', 'offset-distance', 'offset-rotate', 'mask-position']);
  const KEYFRAME_META = new Set(['offset', 'computedOffset', 'easing', 'composite']);
  const live = (a) => a.pending || a.playState === 'running';
  function paintOnly(a) {
    const frames = a.effect && a.effect.getKeyframes ? a.effect.getKeyframes() : [];
    for (const k of frames) {
      for (const prop of Object.keys(k)) {
        if (KEYFRAME_META.has(prop)) continue;
        const css = prop.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
        if (!PAINT_ONLY.has(css) && !css.endsWith('-color') && css !== 'color' && css !== 'fill' && css !== 'stroke') return false;
      }
    }
    return true;
  }
  // Whether a running animation can move `el` before the next frame: one on
  // it or on an element it sits in (any property: a transform, a slide), or
  // one elsewhere that changes layout (a height, a margin). Spinners, fades
  // and shimmers elsewhere cannot, so they cost no frame.
  function mayMove(el) {
    const roots = new Set([el.ownerDocument]);
    for (let n = el; n; n = parentOf(n)) {
      if (n.nodeType !== 1) continue;
      if (n.getAnimations().some(live)) return true;
      // Animations in shadow trees are listed by their root, not the document.
      roots.add(n.getRootNode());
    }
    for (const root of roots) {
      if (root.getAnimations && root.getAnimations().some((a) => live(a) && !paintOnly(a))) return true;
    }
    return false;
  }

  // Whether el's box is inside the viewport and inside every box on its
  // composed path that clips it (a scroll container, overflow: hidden).
  function inView(el) {
    const b = el.getBoundingClientRect();
    const inside = (top, left, bottom, right) => b.top >= top - 1 && b.left >= left - 1 && b.bottom <= bottom + 1 && b.right <= right + 1;
    if (!inside(0, 0, innerHeight, innerWidth)) return false;
    for (let n = parentOf(el); n && n.nodeType === 1; n = parentOf(n)) {
      if (n === document.body || n === document.documentElement) continue;
      const s = getComputedStyle(n);
      if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
      const r = n.getBoundingClientRect();
      if (!inside(r.top, r.left, r.bottom, r.right)) return false;
    }
    return true;
  }
  // Brings el into view in one step, whatever the page's scroll-behavior (a
  // smooth scroll would still be moving when the hit test runs). Playwright
  // scrolls the same way. In a child frame, the frames around it may still
  // need scrolling when el is in its own frame's view: scrollIntoViewIfNeeded
  // walks up through them.
  function reveal(el) {
    if (!inView(el)) el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    else if (window !== window.top && el.scrollIntoViewIfNeeded) el.scrollIntoViewIfNeeded(true);
  }

  // The focused element, inside open shadow roots.
  function activeDeep(doc) {
    let a = doc.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    return a;
  }
  const focusedIn = (el) => { const a = activeDeep(el.ownerDocument); return !!a && contains(el, a); };
  const shown = (el) => el.isConnected && hasBox(el) && el.checkVisibility({ visibilityProperty: true });
  // Dialogs on show (modal or not), to name one an action opened.
  function openDialogs() {
    return [...document.querySelectorAll('dialog[open], [role=dialog], [role=alertdialog], [aria-modal=true]')].filter(shown);
  }
  // What an agent would need to know if the action does not take: recorded
  // when the action starts, compared by changes() afterwards.
  function record(el) {
    W.acted = { el, disabled: isDisabled(el), shown: shown(el), dialogs: new Set(openDialogs()) };
  }
  // What changed around el since record(): {dialogs: [...], gone, disabled,
  // hidden, focus (with o.focus), covered}, only the keys that apply; `fatal`
  // when el can no longer take text (gone, disabled, hidden, focus elsewhere).
  function changes(el, o) {
    const before = W.acted && W.acted.el === el ? W.acted : { disabled: false, shown: true, dialogs: new Set() };
    const out = {};
    const opened = openDialogs().filter((d) => !before.dialogs.has(d) && !contains(d, el));
    if (opened.length) out.dialogs = opened.slice(0, 3).map(describeHit);
    if (!el.isConnected) out.gone = true;
    else if (!before.disabled && isDisabled(el)) out.disabled = true;
    else if (before.shown && !shown(el)) out.hidden = true;
    if (o.focus && !out.gone && !out.disabled && !out.hidden && !focusedIn(el)) {
      const a = activeDeep(el.ownerDocument);
      out.focus = a && a !== document.body && a !== document.documentElement ? describeHit(a) : 'the page';
    }
    if (el.isConnected && shown(el)) {
      const p = pointIn(el);
      const hit = p && deepHit(el.ownerDocument, p.x, p.y);
      if (hit && !reaches(el, el, hit)) out.covered = describeHit(hit);
    }
    // A cover is not: text still goes where the focus is.
    out.fatal = !!(out.gone || out.disabled || out.hidden || out.focus);
    return out;
  }

  // The hit-target interceptor (as Playwright's): armed once a click's target
  // is actionable, it watches the click's own trusted events in the capture
  // phase on the window, before the page's listeners on the document and
  // below. If the first lands where something else is drawn over the target,
  // or any is aimed at an element that is not the target (an overlay that
  // appeared as the mouse came down), that event and the rest are blocked
  // and disarm() reports what took them. A target replaced by the page
  // (a re-render on mousedown) is not a cover: the click goes where a
  // person's would. It disarms itself after two seconds, so a click that
  // never came cannot swallow a person's later one.
  const CLICK_EVENTS = ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'auxclick', 'dblclick', 'contextmenu'];
  function arm(el, aim) {
    disarm();
    const s = { until: performance.now() + 2000, seen: false, covered: null };
    s.listener = (e) => {
      if (!e.isTrusted || W.intercept !== s) return;
      if (performance.now() > s.until) { disarm(); return; }
      if (!s.covered && el.isConnected) {
        const t = e.composedPath()[0];
        let by = t && t.nodeType === 1 && !reaches(el, aim, t) ? t : null;
        if (!by && !s.seen) {
          const hit = deepHit(el.ownerDocument, e.clientX, e.clientY);
          if (hit && !reaches(el, aim, hit)) by = hit;
        }
        s.seen = true;
        if (by) s.covered = describeHit(by);
      }
      if (s.covered) {
        e.preventDefault();
        e.stopImmediatePropagation();
      }
    };
    for (const t of CLICK_EVENTS) window.addEventListener(t, s.listener, true);
    W.intercept = s;
  }
  function disarm() {
    const s = W.intercept;
    if (!s) return null;
    for (const t of CLICK_EVENTS) window.removeEventListener(t, s.listener, true);
    W.intercept = null;
    return s;
  }

  // Input types whose value is set rather than typed (as Playwright's fill),
  // with the format each takes.
  const SET_VALUE = {
    date: 'YYYY-MM-DD', time: 'HH:MM or HH:MM:SS', 'datetime-local': 'YYYY-MM-DDTHH:MM', month: 'YYYY-MM',
    week: 'YYYY-Www', color: '#rrggbb', range: '',
  };
  const TYPE_INTO = new Set(['', 'email', 'number', 'password', 'search', 'tel', 'text', 'url']);
  function formatOf(el) {
    if (el.type !== 'range') return SET_VALUE[el.type];
    const step = el.getAttribute('step') || '1';
    return 'a number from ' + (el.getAttribute('min') || '0') + ' to ' + (el.getAttribute('max') || '100') +
      (step === 'any' || step === '1' ? '' : ' in steps of ' + step);
  }
  // What the browser keeps of `value` in an input like el: it drops a
  // malformed date or color and clamps a range. A detached copy is asked,
  // so a rejected value does not wipe the field's own.
  function sanitized(el, value) {
    const probe = document.createElement('input');
    probe.type = el.type;
    for (const a of ['min', 'max', 'step']) if (el.hasAttribute(a)) probe.setAttribute(a, el.getAttribute(a));
    probe.value = value;
    return probe.value;
  }
  const valueOf = (el) => (el.isContentEditable ? el.innerText : el.value);
  // Whether a field showing `got` holds what was filled in (`want`): the same
  // text, or the same letters and digits in it, as a page that formats what
  // is typed shows them ("5551234" as "555-1234", "ab" as "AB", a
  // suggestion that completes it).
  function holds(el, got, want) {
    if (el.tagName === 'INPUT' && el.type in SET_VALUE) return got === want || (el.type === 'color' && got === want.toLowerCase());
    const lines = (s) => s.replace(/\r\n?/g, '\n').replace(/\u00a0/g, ' ').replace(/\n+$/, '');
    if (lines(got) === lines(want)) return true;
    const bare = (s) => s.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
    return want !== '' && bare(want) !== '' && bare(got).includes(bare(want));
  }

  Object.assign(lib, {
    // Waits (up to timeoutMs) until the target is attached, visible, enabled
    // (o.enabled), stable and, with o.hit, the element at its click point.
    async actionable(target, o) {
      const until = performance.now() + o.timeoutMs;
      let last = { code: 'missing' };
      for (;;) {
        const r = this.element(target);
        if (r.stale) return { stale: r.stale };
        if (r.invalid) return { invalid: r.invalid };
        if (r.el) {
          const el = r.el;
          let aim = el;
          const box = el.getBoundingClientRect();
          if ((box.width < 2 || box.height < 2 || !el.checkVisibility({ visibilityProperty: true, opacityProperty: true })) && el.labels && el.labels.length) {
            aim = [...el.labels].find((l) => hasBox(l) && l.checkVisibility({ visibilityProperty: true })) || el;
          }
          if (!hasBox(aim) || !aim.checkVisibility({ visibilityProperty: true })) last = { code: 'hidden' };
          else if (o.enabled && isDisabled(el)) last = { code: 'disabled' };
          else {
            reveal(aim);
            // Stable: the same box one frame later. Only an animation can move
            // it between frames, so without one that can, skip the ~16 ms wait.
            const a = aim.getBoundingClientRect();
            if (mayMove(aim)) await frame();
            const b = aim.getBoundingClientRect();
            if (a.x !== b.x || a.y !== b.y || a.width !== b.width || a.height !== b.height) last = { code: 'moving' };
            else {
              const p = pointIn(aim);
              if (!p) last = { code: 'hidden' };
              else {
                const hit = o.hit && deepHit(aim.ownerDocument, p.x, p.y);
                if (!hit || reaches(el, aim, hit)) {
                  // The click follows in the next round trip: watch it land.
                  if (o.arm) arm(el, aim);
                  if (o.arm || o.record) record(el);
                  return p;
                }
                last = { code: 'covered', by: describeHit(hit) };
              }
            }
          }
        } else {
          last = { code: 'missing' };
        }
        if (performance.now() >= until) return { blocked: last };
        await sleep(25);
      }
    },
    // Disarms the click's interceptor: {covered: what took the click} when it
    // blocked the click, else {ok}.
    intercepted() {
      const s = disarm();
      return s && s.covered ? { covered: s.covered } : { ok: true };
    },
    // Runs fn(el, arg) on the target; returns {ok} or why not.
    run(target, fn, arg) {
      const r = this.element(target);
      if (!r.el) return r;
      return { ok: fn(r.el, arg) };
    },
    checked(target) {
      const r = this.element(target);
      if (!r.el) return r;
      const el = r.el;
      if (el.tagName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) return { ok: el.checked };
      const aria = el.getAttribute('aria-checked') ?? el.getAttribute('aria-pressed');
      if (aria === null) return { notCheckable: true };
      return { ok: aria === 'true' };
    },
    select(target, wanted) {
      const r = this.element(target);
      if (!r.el) return r;
      const el = r.el;
      if (el.tagName !== 'SELECT') return { notSelect: true };
      const opts = [...el.options];
      const picked = [];
      for (const w of wanted) {
        const o = opts.find((o) => o.value === w) || opts.find((o) => norm(o.textContent) === norm(w)) || opts.find((o) => norm(o.label) === norm(w));
        if (!o) return { noOption: w, options: opts.map((o) => norm(o.textContent) + (o.value !== norm(o.textContent) ? ' (' + o.value + ')' : '')) };
        picked.push(o);
      }
      if (picked.length > 1 && !el.multiple) return { notMultiple: true };
      if (el.disabled) return { disabled: true };
      record(el);
      for (const o of opts) o.selected = picked.includes(o);
      el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
      return { ok: picked.map((o) => o.value) };
    },
    // Focuses a field and selects its content, so typed text replaces it
    // ({ok, editable, text: what to enter}); or, for the input types whose value is set rather
    // than typed (date, color, range, …), checks the value's format and sets
    // it with the native setter, input and change following ({ok, set}). A
    // field that changed as it took focus (disabled by a popup, focus sent
    // elsewhere) is reported as {changed} and nothing is entered: the text
    // would go to whatever has focus now.
    prepareFill(target, value) {
      const r = this.element(target);
      if (!r.el) return r;
      const el = r.el;
      if (isDisabled(el)) return { disabled: true };
      const tag = el.tagName;
      const type = tag === 'INPUT' ? el.type : '';
      const setValue = tag === 'INPUT' && type in SET_VALUE;
      if (!(tag === 'TEXTAREA' || setValue || (tag === 'INPUT' && TYPE_INTO.has(type)) || el.isContentEditable)) {
        return { notFillable: tag === 'INPUT' ? 'type=' + type + ' input' : (roleOf(el) || tag.toLowerCase()) };
      }
      if (el.readOnly) return { readonly: true };
      let want = value;
      if (setValue) {
        want = value.trim();
        const got = sanitized(el, want);
        if (got !== want && !(type === 'color' && got === want.toLowerCase())) return { malformed: formatOf(el), type };
      } else if (type === 'number') {
        // As Playwright: a number field takes the number without spaces.
        want = value.trim();
        if (want !== '' && isNaN(Number(want))) return { malformed: 'a number', type };
      }
      record(el);
      el.focus();
      const c = changes(el, { focus: true });
      if (c.fatal) return { changed: c };
      if (setValue) {
        Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(el, type === 'color' ? want.toLowerCase() : want);
        el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
        el.dispatchEvent(new Event('change', { bubbles: true }));
        return { ok: el.value, set: true };
      }
      if (el.isContentEditable) {
        const range = document.createRange();
        range.selectNodeContents(el);
        const sel = getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
      } else if (typeof el.select === 'function') el.select();
      return { ok: true, editable: el.isContentEditable, text: want };
    },
    // Reads back what an action promised, once it has settled: `fill`
    // (want: the text), `select` (want: the option values picked) or
    // `checked` (want: true/false). {ok: what it shows} when it holds, else
    // {shows, change: what changed around it (see changes())}.
    verify(target, kind, want) {
      const r = this.element(target);
      if (!r.el) return r;
      const el = r.el;
      let ok;
      let got;
      if (kind === 'fill') {
        got = valueOf(el);
        ok = holds(el, got, want);
      } else if (kind === 'select') {
        const on = [...el.selectedOptions];
        got = on.map((o) => norm(o.textContent) || o.value);
        ok = on.length === want.length && on.every((o) => want.includes(o.value));
        if (ok) got = on.map((o) => o.value);
      } else {
        const c = this.checked(target);
        got = c.ok;
        ok = got === want;
      }
      if (ok) return { ok: got };
      const out = { shows: got, change: changes(el, { focus: kind === 'fill' }) };
      if (kind === 'fill' && el.maxLength > 0 && got.length >= el.maxLength) out.maxLength = el.maxLength;
      return out;
    },
    // Whether keys go to the target: it has focus or holds what has, and in
    // a child frame, the frame has the page's focus (else keys go elsewhere).
    hasFocus(target) {
      const r = this.element(target);
      if (!r.el) return r;
      return { ok: focusedIn(r.el) && (window === window.top || document.hasFocus()) };
    },
    // What has focus in this document: {ok: its description, value} (value
    // null for what holds none, a frame's element included: the frame has
    // the focus), or {none} when only the page itself has it.
    focused() {
      const a = activeDeep(document);
      if (!a || a === document.body || a === document.documentElement) return { none: true };
      const value = a.isContentEditable || (('value' in a) && a.tagName !== 'BUTTON') ? valueOf(a) : null;
      return { ok: describeHit(a), value };
    },
    // Clears a field the way a user would see it (setter + input/change).
    clear(target) {
      const r = this.element(target);
      if (!r.el) return r;
      const el = r.el;
      if (el.isContentEditable) el.textContent = '';
      else {
        const proto = Object.getPrototypeOf(el);
        const setter = Object.getOwnPropertyDescriptor(proto, 'value');
        if (setter && setter.set) setter.set.call(el, ''); else el.value = '';
      }
      el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
      return { ok: true };
    },
    changed(target) {
      const r = this.element(target);
      if (!r.el) return r;
      r.el.dispatchEvent(new Event('change', { bubbles: true }));
      return { ok: r.el.isContentEditable ? r.el.innerText : r.el.value };
    },
    scroll(target, dx, dy) {
      // Instant, whatever the page's scroll-behavior: the scroll is done when
      // the call returns, as the positions it reports say.
      if (target === null) { scrollBy({ left: dx, top: dy, behavior: 'instant' }); return { ok: [scrollX, scrollY] }; }
      const r = this.element(target);
      if (!r.el) return r;
      if (dx === 0 && dy === 0) { r.el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' }); return { ok: null }; }
      r.el.scrollBy({ left: dx, top: dy, behavior: 'instant' });
      return { ok: [r.el.scrollLeft, r.el.scrollTop] };
    },
    // The element as an object (for CDP calls that need a node).
    node(target) {
      const r = this.element(target);
      return r.el || null;
    },
  });
