  // --- Acting: hit tests, actionability, settling, form calls. ---

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
            // Brings it into view in every scroll container (a no-op when it is).
            if (aim.scrollIntoViewIfNeeded) aim.scrollIntoViewIfNeeded(true);
            else aim.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
            // Stable: the same box one frame later. Only an animation can move
            // it between frames, so without one that can, skip the ~16 ms wait.
            const a = aim.getBoundingClientRect();
            if (mayMove(aim)) await frame();
            const b = aim.getBoundingClientRect();
            if (a.x !== b.x || a.y !== b.y || a.width !== b.width || a.height !== b.height) last = { code: 'moving' };
            else {
              const p = pointIn(aim);
              if (!p) last = { code: 'hidden' };
              else if (!o.hit) return p;
              else {
                const hit = deepHit(aim.ownerDocument, p.x, p.y);
                if (!hit || reaches(el, aim, hit)) return p;
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
      for (const o of opts) o.selected = picked.includes(o);
      el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
      return { ok: picked.map((o) => o.value) };
    },
    // Focuses a field and selects its content, so typed text replaces it.
    prepareFill(target) {
      const r = this.element(target);
      if (!r.el) return r;
      const el = r.el;
      if (isDisabled(el)) return { disabled: true };
      const tag = el.tagName;
      const textual = tag === 'TEXTAREA' || (tag === 'INPUT' && !['checkbox', 'radio', 'file', 'submit', 'button', 'reset', 'image', 'range', 'color', 'hidden'].includes(el.type));
      if (!textual && !el.isContentEditable) return { notFillable: (roleOf(el) || tag.toLowerCase()) };
      if (el.readOnly) return { readonly: true };
      el.focus();
      if (el.isContentEditable) {
        const range = document.createRange();
        range.selectNodeContents(el);
        const sel = getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
      } else if (typeof el.select === 'function') el.select();
      return { ok: true, editable: el.isContentEditable };
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
      if (target === null) { scrollBy(dx, dy); return { ok: [scrollX, scrollY] }; }
      const r = this.element(target);
      if (!r.el) return r;
      if (dx === 0 && dy === 0) { r.el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' }); return { ok: null }; }
      r.el.scrollBy(dx, dy);
      return { ok: [r.el.scrollLeft, r.el.scrollTop] };
    },
    // The element as an object (for CDP calls that need a node).
    node(target) {
      const r = this.element(target);
      return r.el || null;
    },
  });
