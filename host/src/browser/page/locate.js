  // --- Locators: elements by text, role, label, … (browser/locate.rs parses
  // the locator; this part runs its parts, already structured, in one frame).

  // Every element under `root` in the composed tree (open shadow roots
  // included, slotted content where its slot shows it), in document order,
  // `root` itself excluded. Bounded like the snapshot walk.
  const LOCATE_MAX = 200000;
  function deepElements(root, st) {
    const out = [];
    const stack = [root];
    while (stack.length) {
      const el = stack.pop();
      if (el !== root) {
        if (++st.visited > LOCATE_MAX) { st.truncated = true; break; }
        out.push(el);
      }
      if (el.nodeType === 1 && SKIP.has(el.tagName)) continue;
      const kids = el.nodeType === 1 ? childrenOf(el) : el.childNodes;
      for (let i = kids.length - 1; i >= 0; i--) if (kids[i].nodeType === 1) stack.push(kids[i]);
    }
    return out;
  }

  // A text-match test for a {text, exact} value.
  function matcher(m) {
    if (m.exact) return (s) => norm(s) === m.text;
    const want = m.text.toLowerCase();
    return (s) => norm(s).toLowerCase().includes(want);
  }

  // The smallest elements whose rendered text matches: walked bottom-up, an
  // element matches only when none of its children did. Text of a
  // display:none child is not its parent's, but the child is still looked
  // at (so a match in a closed menu is found, then reported as hidden).
  function byText(root, m, st) {
    const test = matcher(m);
    const found = [];
    const walk = (el, depth) => {
      if (++st.visited > LOCATE_MAX) { st.truncated = true; return { text: '', shown: false, block: false }; }
      const style = el.ownerDocument.defaultView.getComputedStyle(el);
      const shown = style.display !== 'none';
      const block = isBlock(style.display);
      if (el.tagName === 'INPUT') {
        const t = el.type === 'submit' || el.type === 'button' || el.type === 'reset' ? el.value : '';
        if (t && test(t)) found.push(el);
        return { text: t, shown, block };
      }
      if (el.tagName === 'IMG') {
        const t = el.getAttribute('alt') || '';
        if (t && test(t)) found.push(el);
        return { text: t, shown, block };
      }
      let text = '';
      let childMatched = false;
      if (depth < 200) {
        for (const k of childrenOf(el)) {
          if (k.nodeType === 3) text += k.data;
          else if (k.nodeType === 1) {
            if (SKIP.has(k.tagName) || k.tagName === 'IFRAME' || k.tagName === 'FRAME') continue;
            if (k.tagName === 'BR') { text += ' '; continue; }
            const before = found.length;
            const r = walk(k, depth + 1);
            if (found.length > before) childMatched = true;
            if (r.shown) text += r.block ? ' ' + r.text + ' ' : r.text;
          }
          if (st.truncated) break;
          // A container's text matters only when its parts alone do not
          // match; past this length it is a page, not a control.
          if (text.length > 20000) text = text.slice(0, 20000);
        }
      }
      if (!childMatched && el !== root && test(text)) found.push(el);
      return { text, shown, block };
    };
    walk(root.nodeType === 9 ? (root.body || root.documentElement) : root, 0);
    // The text belongs to the control it sits in: the button around a span,
    // the input a label stands for (as a click there would reach it).
    return found.map((el) => activated(el) || el);
  }

  // The snapshot's rule for a ref on an element with no role of its own
  // (`clickTarget` in core.js: a click listener, onclick, tabindex, an <a>
  // without href, styled as clickable).
  function roleForLocate(el) {
    const role = roleOf(el);
    if (role) return role;
    if (el.tagName === 'SUMMARY') return 'button';
    const view = el.ownerDocument.defaultView;
    return clickTarget(el, view.getComputedStyle(el), view) ? 'clickable' : null;
  }

  // The state `name` of `el` as `role=…[name=value]` compares it.
  function stateOf(el, role, name) {
    const tag = el.tagName;
    switch (name) {
      case 'checked': {
        if (tag === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) return el.indeterminate ? 'mixed' : String(el.checked);
        const a = el.getAttribute('aria-checked');
        return a === 'true' || a === 'mixed' ? a : 'false';
      }
      case 'pressed': { const a = el.getAttribute('aria-pressed'); return a === 'true' || a === 'mixed' ? a : 'false'; }
      case 'selected':
        return String(tag === 'OPTION' ? el.selected : el.getAttribute('aria-selected') === 'true');
      case 'expanded': {
        const a = el.getAttribute('aria-expanded');
        if (a !== null) return a;
        if (tag === 'SUMMARY' && el.parentElement && el.parentElement.tagName === 'DETAILS') return String(el.parentElement.open);
        return 'false';
      }
      case 'disabled': return String(isDisabled(el));
      case 'level': {
        const lvl = /^H([1-6])$/.exec(tag);
        return el.getAttribute('aria-level') || (lvl ? lvl[1] : role === 'heading' ? '2' : '');
      }
      default: return '';
    }
  }

  function byRole(root, part, st) {
    const name = part.name ? matcher(part.name) : null;
    const out = [];
    for (const el of deepElements(root, st)) {
      const role = part.role === 'clickable' ? roleForLocate(el) : (roleOf(el) || (el.tagName === 'SUMMARY' ? 'button' : null));
      if (role !== part.role) continue;
      if (name && !name(nameOf(el, role))) continue;
      if (!part.states.every((s) => stateOf(el, role, s.name) === (s.value === null ? 'true' : s.value))) continue;
      out.push(el);
    }
    return out;
  }

  // What labels an element: its <label>s, aria-labelledby, aria-label.
  function labelsOf(el) {
    const out = [];
    if (el.labels) for (const l of el.labels) out.push(labelText(l, el));
    for (const n of byIds(el, 'aria-labelledby')) out.push(textOf(n, 1));
    const aria = el.getAttribute('aria-label');
    if (aria) out.push(aria);
    return out;
  }

  function byAttr(root, attr, test, st) {
    return deepElements(root, st).filter((el) => el.hasAttribute(attr) && test(el.getAttribute(attr)));
  }

  function byCss(root, selector, st) {
    // Each shadow root is queried on its own (a selector does not span a
    // boundary), as deepQuery does for plain selectors.
    const out = [...root.querySelectorAll(selector)];
    if (root.shadowRoot) out.push(...root.shadowRoot.querySelectorAll(selector));
    for (const el of deepElements(root, st)) if (el.shadowRoot) out.push(...el.shadowRoot.querySelectorAll(selector));
    return out;
  }

  function runPart(root, part, st) {
    switch (part.engine) {
      case 'css': return byCss(root, part.selector, st);
      case 'text': return byText(root, part, st);
      case 'role': return byRole(root, part, st);
      case 'label': { const t = matcher(part); return deepElements(root, st).filter((el) => labelsOf(el).some(t)); }
      case 'placeholder': return byAttr(root, 'placeholder', matcher(part), st);
      case 'alt': return byAttr(root, 'alt', matcher(part), st);
      case 'title': return byAttr(root, 'title', matcher(part), st);
      case 'testid': return byAttr(root, 'data-testid', (v) => v === part.text, st);
      default: return [];
    }
  }

  // Rendered and visible, or a control drawn by its visible label (a
  // hidden checkbox behind a styled label), as the snapshot rules.
  function visibleEl(el) {
    if (hasBox(el) && el.checkVisibility({ visibilityProperty: true })) return true;
    return !!(el.labels && [...el.labels].some((l) => hasBox(l) && l.checkVisibility({ visibilityProperty: true })));
  }

  // Runs the parts in turn, each inside the matches of the one before;
  // `nth` picks one. Document order, no duplicates.
  function runParts(parts, st) {
    let scopes = [document];
    let found = [];
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      if (part.engine === 'nth') {
        const pick = part.index < 0 ? found[found.length + part.index] : found[part.index];
        found = pick ? [pick] : [];
      } else {
        const seen = new Set();
        found = [];
        for (const scope of scopes) {
          for (const el of runPart(scope, part, st)) {
            if (el === scope || seen.has(el)) continue;
            seen.add(el);
            found.push(el);
          }
        }
        found.sort((a, b) => (a === b ? 0 : a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
        // Steps before the last look inside visible matches only.
        if (i < parts.length - 1) found = found.filter(visibleEl);
      }
      scopes = found;
    }
    return found;
  }

  // Context for `find`: the item, row or dialog a match sits in, else the
  // heading above it, else its landmark.
  const ITEM_ROLES = new Set(['listitem', 'row', 'dialog', 'alertdialog', 'menu', 'listbox', 'tree', 'option', 'article']);
  const LANDMARKS = new Set(['navigation', 'main', 'complementary', 'banner', 'contentinfo', 'region', 'form', 'group', 'toolbar', 'tablist', 'table']);
  function contextOf(el) {
    let landmark = null;
    for (let n = parentOf(el); n && n.nodeType === 1 && n !== document.body; n = parentOf(n)) {
      const role = roleOf(n);
      if (ITEM_ROLES.has(role)) return contextLine(n, role);
      if (!landmark && LANDMARKS.has(role)) landmark = [n, role];
    }
    const heading = headingBefore(el);
    if (heading && (!landmark || landmark[0].contains(heading))) return contextLine(heading, 'heading');
    return landmark ? contextLine(landmark[0], landmark[1]) : '';
  }
  function contextLine(n, role) {
    const name = nameOf(n, role) || norm(textOf(n));
    return role + (name ? ' ' + JSON.stringify(clip(name, 80)) : '');
  }
  function headingBefore(el) {
    const root = el.getRootNode();
    const all = root.querySelectorAll ? root.querySelectorAll('h1,h2,h3,h4,h5,h6,[role=heading]') : [];
    let last = null;
    for (const h of all) {
      if (h.contains(el)) continue;
      if (h.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) last = h;
      else break;
    }
    return last;
  }

  // A ref for a match, as the snapshot gives one (the same element keeps
  // its number while its role and name stay).
  function locRef(el, st) {
    const role = roleOf(el) || 'clickable';
    return refFor(el, role + '|' + nameOf(el, role), st);
  }
  function locItem(el, st, context) {
    const ref = locRef(el, st);
    const item = { ref, line: describe(el) };
    if (context) item.context = contextOf(el);
    return item;
  }

  Object.assign(lib, {
    // Runs a locator's parts in this frame. Returns how many visible and
    // hidden elements match, the first `limit` visible ones with refs
    // (and, with o.context, a context line), lines for a few hidden ones,
    // and how many frames to search next (W.locFrames).
    locate(o) {
      W.prefix = o.prefix;
      const st = { next: o.nextRef, visited: 0, truncated: false };
      let all;
      try {
        // A bad selector fails here, whether or not the parts before it match.
        for (const p of o.parts) if (p.engine === 'css') document.createDocumentFragment().querySelector(p.selector);
        all = runParts(o.parts, st);
      } catch (e) { return { invalid: String(e.message) }; }
      const shown = [];
      const hidden = [];
      for (const el of all) (visibleEl(el) ? shown : hidden).push(el);
      W.located = shown;
      const items = shown.slice(0, o.limit).map((el) => locItem(el, st, o.context));
      W.locFrames = [...document.querySelectorAll('iframe,frame')].filter((f) => hasBox(f) && f.checkVisibility({ visibilityProperty: true }));
      for (const el of deepElements(document, { visited: 0 })) {
        if (el.shadowRoot) W.locFrames.push(...[...el.shadowRoot.querySelectorAll('iframe,frame')].filter(hasBox));
      }
      return {
        count: shown.length, items, nextRef: st.next, truncated: st.truncated,
        hidden: hidden.length, hiddenLines: hidden.slice(0, 5).map((el) => describe(el)),
        frames: W.locFrames.length, origin: location.origin,
      };
    },
    // A ref for the i-th visible match of the last `locate` in this frame.
    locatePick(o) {
      W.prefix = o.prefix;
      const el = W.located && W.located[o.index];
      if (!el || !el.isConnected) return { gone: true };
      const st = { next: o.nextRef };
      const item = locItem(el, st, o.context);
      return { item, nextRef: st.next };
    },
  });
