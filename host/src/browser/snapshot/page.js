// webrig's page library. Installed once per document into webrig's isolated
// world (page scripts cannot see or tamper with it) as globalThis.__webrig.
// It computes roles, accessible names and states itself (a DOM walk is ~100x
// cheaper than Accessibility.getFullAXTree), keeps the ref <-> node maps, and
// checks actionability. Everything it returns is plain JSON.
(() => {
  if (globalThis.__webrig && globalThis.__webrig.lib) return;
  const W = (globalThis.__webrig = {
    refOf: new WeakMap(), // Element -> {ref, sig}
    byRef: new Map(), // ref number -> {el: WeakRef, sig}
    frames: new Map(), // frame ordinal -> WeakRef(iframe element)
    pending: [], // iframe elements met by the last walk, in order
  });

  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'BASE', 'PARAM', 'SOURCE', 'TRACK']);
  // Roles named by their content. Cells and headers are too in ARIA, but in an
  // outline that repeats every cell's text; they show their content instead.
  const NAME_FROM_CONTENT = new Set(['button', 'link', 'heading', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
    'option', 'checkbox', 'radio', 'switch', 'treeitem', 'tooltip', 'clickable', 'summary']);
  const INTERACTIVE = new Set(['link', 'button', 'checkbox', 'radio', 'switch', 'textbox', 'searchbox', 'combobox', 'listbox',
    'slider', 'spinbutton', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'treeitem', 'clickable']);
  const VALUE_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton', 'slider']);
  const LANDMARK_TAGS = { NAV: 'navigation', MAIN: 'main', ASIDE: 'complementary', ARTICLE: 'article', DIALOG: 'dialog',
    UL: 'list', OL: 'list', MENU: 'list', LI: 'listitem', TABLE: 'table', THEAD: 'rowgroup', TBODY: 'rowgroup', TFOOT: 'rowgroup',
    TR: 'row', TD: 'cell', P: 'paragraph', BLOCKQUOTE: 'blockquote', FIELDSET: 'group', PROGRESS: 'progressbar', METER: 'meter',
    TEXTAREA: 'textbox', OPTION: 'option', DL: 'list', DT: 'term', DD: 'definition', FIGURE: 'figure', HR: 'separator',
    OUTPUT: 'status', CODE: 'code', PRE: 'code', SUMMARY: 'summary', IFRAME: 'iframe', FRAME: 'iframe' };
  // Elements that name their parent (fieldset, table, figure) rather than stand alone.
  const NAMING = new Set(['LEGEND', 'CAPTION', 'FIGCAPTION']);

  const clip = (s, n) => (s.length > n ? s.slice(0, n - 1) + '…' : s);
  const norm = (s) => (s || '').replace(/\s+/g, ' ').trim();

  // Text flows as rendering lays it out. A whitespace-only text node is a
  // space (rendering keeps one between inline boxes, `<b>3</b> items`); a
  // block box or a <br> is a separator; both collapse into their neighbours.
  // Shared and frozen: the walk meets thousands of them.
  const WS = Object.freeze({ t: 'text', s: ' ' });
  const SEP = Object.freeze({ t: 'sep' });
  // Whether a box starts a line of its own (what innerText also breaks on):
  // blocks, list items, table cells and rows, flex and grid items (their
  // computed display is blockified). `contents` has no box; ruby is inline.
  const isBlock = (d) => !(d.startsWith('inline') || d === 'contents' || d.startsWith('ruby'));
  function pushWs(out) {
    const last = out[out.length - 1];
    if (last !== WS && last !== SEP) out.push(WS);
  }
  function pushSep(out) {
    const last = out[out.length - 1];
    if (last === WS) out[out.length - 1] = SEP;
    else if (last !== SEP) out.push(SEP);
  }

  // What an element renders: its open shadow root when it hosts one (any
  // element, <body> included), a slot's assigned nodes, else its children.
  function childrenOf(el) {
    if (el.shadowRoot) return el.shadowRoot.childNodes;
    return el.tagName === 'SLOT' ? slotted(el) : el.childNodes;
  }

  // A CSS selector's first match: in the document, else in open shadow roots
  // (on any host, nested ones too) in document order, as Playwright's css
  // engine pierces them. Each root is queried on its own, so one selector
  // does not span a shadow boundary (`#host button`). The light DOM goes
  // first because it costs one querySelector; the roots are looked for
  // (a walk of the page) only when it has no match.
  function deepQuery(selector) {
    return document.querySelector(selector) || queryShadows(document, selector);
  }
  function queryShadows(root, selector) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const sr = n.shadowRoot;
      if (!sr) continue;
      const hit = sr.querySelector(selector) || queryShadows(sr, selector);
      if (hit) return hit;
    }
    return null;
  }

  function implicitRole(el) {
    const tag = el.tagName;
    switch (tag) {
      case 'A': case 'AREA': return el.hasAttribute('href') ? 'link' : null;
      case 'BUTTON': return 'button';
      case 'INPUT': {
        const t = (el.getAttribute('type') || 'text').toLowerCase();
        if (t === 'hidden') return 'hidden';
        if (['button', 'submit', 'reset', 'image'].includes(t)) return 'button';
        if (t === 'checkbox') return 'checkbox';
        if (t === 'radio') return 'radio';
        if (t === 'range') return 'slider';
        if (t === 'number') return 'spinbutton';
        if (t === 'search') return el.hasAttribute('list') ? 'combobox' : 'searchbox';
        if (t === 'file') return 'button';
        if (['color', 'date', 'datetime-local', 'month', 'time', 'week'].includes(t)) return 'textbox';
        return el.hasAttribute('list') ? 'combobox' : 'textbox';
      }
      case 'SELECT': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'H1': case 'H2': case 'H3': case 'H4': case 'H5': case 'H6': return 'heading';
      case 'IMG': return el.getAttribute('alt') === '' ? null : 'img';
      case 'SVG': case 'svg': return el.getAttribute('aria-label') || el.querySelector(':scope > title') ? 'img' : null;
      case 'HEADER': return el.closest('article,aside,main,nav,section') ? null : 'banner';
      case 'FOOTER': return el.closest('article,aside,main,nav,section') ? null : 'contentinfo';
      case 'SECTION': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : null;
      case 'FORM': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') || el.hasAttribute('name') ? 'form' : null;
      case 'TH': return el.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader';
      case 'DETAILS': return 'group';
      default: return LANDMARK_TAGS[tag] || null;
    }
  }

  function roleOf(el) {
    const explicit = (el.getAttribute('role') || '').trim().split(/\s+/)[0];
    if (explicit && explicit !== 'presentation' && explicit !== 'none' && explicit !== 'generic') return explicit;
    if (explicit === 'presentation' || explicit === 'none') return null;
    let role = implicitRole(el);
    if (!role && el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) role = 'textbox';
    return role;
  }

  // Visible text of a subtree, for names from content: a space where a
  // block box or a <br> breaks the line, nothing from hidden parts. Each
  // element's style is read once, by the element itself.
  function textOf(node, depth = 0, shown = true) {
    if (depth > 20) return '';
    if (node.nodeType === 3) return shown ? node.data : '';
    if (node.nodeType !== 1) return '';
    const el = node;
    if (SKIP.has(el.tagName) || el.getAttribute('aria-hidden') === 'true') return '';
    if (el.tagName === 'BR') return ' ';
    if (el.tagName === 'IMG') return el.getAttribute('alt') || '';
    if (el.tagName === 'INPUT') return el.type === 'submit' || el.type === 'button' ? el.value : '';
    const leaf = el.childElementCount === 0 && !el.shadowRoot && el.tagName !== 'SLOT';
    // Most names (links, buttons) are a bare text node: skip style lookups.
    if (leaf && depth === 0) return el.textContent;
    const style = el.ownerDocument.defaultView.getComputedStyle(el);
    if (style.display === 'none') return '';
    const pad = depth > 0 && isBlock(style.display) ? ' ' : '';
    const aria = depth > 0 && el.getAttribute('aria-label');
    if (aria) return pad + aria + pad;
    // The root's own visibility is its caller's business (old behaviour).
    const visible = depth === 0 || style.visibility === 'visible';
    if (leaf) return visible ? pad + el.textContent + pad : pad;
    let out = pad;
    for (const k of childrenOf(el)) out += textOf(k, depth + 1, visible);
    return out + pad;
  }

  function slotted(slot) {
    const nodes = slot.assignedNodes({ flatten: true });
    return nodes.length ? nodes : slot.childNodes;
  }

  function byIds(el, attr) {
    const ids = (el.getAttribute(attr) || '').trim().split(/\s+/).filter(Boolean);
    const root = el.getRootNode();
    return ids.map((id) => (root.getElementById ? root.getElementById(id) : el.ownerDocument.getElementById(id))).filter(Boolean);
  }

  function nameOf(el, role) {
    const labelled = byIds(el, 'aria-labelledby');
    if (labelled.length) return norm(labelled.map((n) => textOf(n, 1)).join(' '));
    const aria = el.getAttribute('aria-label');
    if (aria && aria.trim()) return norm(aria);
    const tag = el.tagName;
    if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || tag === 'METER' || tag === 'PROGRESS' || tag === 'OUTPUT') {
      const type = (el.getAttribute('type') || '').toLowerCase();
      if (tag === 'INPUT' && ['submit', 'button', 'reset'].includes(type)) return norm(el.value || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : ''));
      if (tag === 'INPUT' && type === 'image') return norm(el.alt || el.value || 'Submit');
      const labels = el.labels ? [...el.labels] : [];
      if (labels.length) return norm(labels.map((l) => labelText(l, el)).join(' '));
      const ph = el.getAttribute('placeholder');
      if (ph) return norm(ph);
    }
    if (tag === 'IMG' || tag === 'AREA') return norm(el.getAttribute('alt') || el.getAttribute('title') || '');
    if (tag === 'FIELDSET') { const lg = el.querySelector(':scope > legend'); if (lg) return norm(textOf(lg)); }
    if (tag === 'TABLE') { const c = el.querySelector(':scope > caption'); if (c) return norm(textOf(c)); }
    if (tag === 'FIGURE') { const c = el.querySelector(':scope > figcaption'); if (c) return norm(textOf(c)); }
    if (tag === 'IFRAME' || tag === 'FRAME') return norm(el.getAttribute('title') || el.getAttribute('name') || '');
    if (tag === 'svg' || tag === 'SVG') { const t = el.querySelector(':scope > title'); if (t) return norm(t.textContent); }
    if (role && NAME_FROM_CONTENT.has(role)) {
      const t = norm(textOf(el));
      if (t) return t;
    }
    return norm(el.getAttribute('title') || '');
  }

  // A label's text without the control it wraps.
  function labelText(label, control) {
    let out = '';
    for (const k of label.childNodes) {
      if (k === control || (k.nodeType === 1 && k.contains(control))) {
        if (k !== control) out += ' ' + textOfExcept(k, control);
        continue;
      }
      out += ' ' + textOf(k, 1);
    }
    return out;
  }
  function textOfExcept(node, except) {
    if (node === except) return '';
    if (node.nodeType === 3) return node.data;
    if (node.nodeType !== 1) return '';
    let out = '';
    for (const k of node.childNodes) out += textOfExcept(k, except);
    return out;
  }

  function isDisabled(el) {
    if (el.getAttribute('aria-disabled') === 'true') return true;
    if ('disabled' in el && el.disabled) return true;
    const fs = el.closest && el.closest('fieldset[disabled]');
    if (fs) { const first = fs.querySelector(':scope > legend'); return !(first && first.contains(el)); }
    return false;
  }

  function states(el, role) {
    const parts = [];
    const tag = el.tagName;
    if (role === 'heading') {
      const lvl = /^H([1-6])$/.exec(tag);
      parts.push('h' + (el.getAttribute('aria-level') || (lvl ? lvl[1] : '2')));
    }
    if (VALUE_ROLES.has(role)) {
      let v = null;
      if (tag === 'SELECT') v = el.selectedOptions.length ? norm(el.selectedOptions[0].textContent) : '';
      else if ('value' in el && tag !== 'BUTTON') v = el.type === 'password' ? '•'.repeat(Math.min(el.value.length, 8)) : el.value;
      else if (el.isContentEditable) v = norm(el.innerText);
      else if (el.getAttribute('aria-valuenow') !== null) v = el.getAttribute('aria-valuenow');
      if (v) parts.push('value=' + JSON.stringify(clip(v, 80)));
    }
    if (el.required || el.getAttribute('aria-required') === 'true') parts.push('required');
    if (el.readOnly && VALUE_ROLES.has(role)) parts.push('readonly');
    const flags = [];
    if (role === 'checkbox' || role === 'radio' || role === 'switch' || role === 'menuitemcheckbox' || role === 'menuitemradio') {
      const aria = el.getAttribute('aria-checked');
      if (tag === 'INPUT' && el.indeterminate) flags.push('checked=mixed');
      else if (tag === 'INPUT' ? el.checked : aria === 'true') flags.push('checked');
      else if (aria === 'mixed') flags.push('checked=mixed');
    }
    if (role === 'option' && (tag === 'OPTION' ? el.selected : el.getAttribute('aria-selected') === 'true')) flags.push('selected');
    if (role === 'tab' && el.getAttribute('aria-selected') === 'true') flags.push('selected');
    const pressed = el.getAttribute('aria-pressed');
    if (pressed === 'true' || pressed === 'mixed') flags.push(pressed === 'true' ? 'pressed' : 'pressed=mixed');
    const expanded = el.getAttribute('aria-expanded');
    if (expanded !== null) flags.push('expanded=' + expanded);
    else if (tag === 'SUMMARY' && el.parentElement && el.parentElement.tagName === 'DETAILS') flags.push('expanded=' + el.parentElement.open);
    if (INTERACTIVE.has(role) && isDisabled(el)) flags.push('disabled');
    if (flags.length) parts.push('[' + flags.join(', ') + ']');
    return parts.join(' ');
  }

  function hasBox(el) {
    const r = el.getClientRects();
    for (const b of r) if (b.width > 0 || b.height > 0) return true;
    return false;
  }

  // Gives `el` its ref: the same node keeps its number while its role and
  // name stay the same; a changed node gets a new one.
  function refFor(el, sig, st) {
    const prev = W.refOf.get(el);
    if (prev && prev.sig === sig && W.byRef.has(prev.ref)) return prev.ref;
    if (prev) W.byRef.delete(prev.ref);
    const ref = st.next++;
    W.refOf.set(el, { ref, sig });
    W.byRef.set(ref, { el: new WeakRef(el), sig });
    return ref;
  }

  // Builds the item tree into `out`: {t:'el', role, name, info, ref, kids} |
  // {t:'text', s} | WS | SEP | {t:'frame', i, name}.
  function visit(node, st, parentVisible, inLabel, out) {
    if (st.stop) return;
    if (node.nodeType === 3) {
      if (!parentVisible || inLabel) return;
      // \s takes in no-break spaces too: they print as plain spaces.
      const s = node.data.replace(/\s+/g, ' ');
      if (s === ' ') pushWs(out);
      else if (s) out.push({ t: 'text', s });
      return;
    }
    if (node.nodeType === 11) { visitKids(node.childNodes, st, parentVisible, inLabel, out); return; }
    if (node.nodeType !== 1) return;
    const el = node;
    if (SKIP.has(el.tagName) || el.getAttribute('aria-hidden') === 'true' || el.hasAttribute('inert')) return;
    if (el.tagName === 'BR') { if (parentVisible) pushSep(out); return; }
    if (NAMING.has(el.tagName) && el.parentElement && el.parentElement.firstElementChild === el) return;
    const view = el.ownerDocument.defaultView;
    const style = view.getComputedStyle(el);
    if (style.display === 'none') return;
    if (++st.visited > 200000) { st.stop = true; st.truncated = true; return; }
    const visible = style.visibility === 'visible' && style.contentVisibility !== 'hidden';
    let role = roleOf(el);
    if (role === 'hidden') return;
    if (role === 'iframe') {
      if (!visible || !hasBox(el)) return;
      W.pending.push(el);
      out.push({ t: 'frame', i: W.pending.length - 1, name: nameOf(el, role) });
      return;
    }
    if (!role && visible && style.cursor === 'pointer' && el.tagName !== 'LABEL') {
      const p = el.parentElement;
      const pc = p ? view.getComputedStyle(p).cursor : 'auto';
      if (pc !== 'pointer' && hasBox(el)) role = 'clickable';
    }
    if (!role && el.tagName === 'SUMMARY') role = 'button';
    if (!role && el.tabIndex >= 0 && el.hasAttribute('tabindex') && hasBox(el)) role = 'clickable';
    const label = el.tagName === 'LABEL' && el.control ? true : inLabel;
    const childless = (role === 'combobox' && el.tagName === 'SELECT') || role === 'textbox' || role === 'searchbox';
    const block = isBlock(style.display);
    if (!role || !visible) {
      // A plain container's content joins its parent's flow, set apart
      // when it is a box of its own.
      if (childless) return;
      if (block) pushSep(out);
      visitKids(childrenOf(el), st, visible, label, out);
      if (block) pushSep(out);
      return;
    }
    const kids = childless ? [] : visitKids(childrenOf(el), st, visible, label, []);
    const name = nameOf(el, role);
    const item = { t: 'el', role, name, info: states(el, role), ref: null, kids, block };
    // A control drawn by its label (a hidden checkbox behind a styled label)
    // is still one an agent can act on: actions aim at the label.
    const reachable = hasBox(el) || (el.labels && [...el.labels].some((l) => hasBox(l)));
    if (INTERACTIVE.has(role) && reachable) {
      item.ref = refFor(el, role + '|' + name, st);
      if (role === 'link' && st.urls && el.href) item.url = String(el.href);
    }
    if (NAME_FROM_CONTENT.has(role) && name) {
      // Its text is its name: keep only nested things an agent can act on.
      item.kids = flattenRefs(kids);
    }
    out.push(item);
  }

  function flattenRefs(items) {
    const out = [];
    for (const it of items) {
      if (it.t === 'frame') out.push(it);
      else if (it.t === 'el') { if (it.ref !== null) out.push(it); else out.push(...flattenRefs(it.kids)); }
    }
    return out;
  }

  function visitKids(list, st, parentVisible, inLabel, out) {
    for (const k of list) { visit(k, st, parentVisible, inLabel, out); if (st.stop) break; }
    return out;
  }

  // Item tree -> lines [depth, text] (frames as [depth, null, index]).
  //
  // Text flows stay on one line: a paragraph with inline links prints as
  // `paragraph: The @e5 "quick" fox …` rather than a line per run and link.
  // That is what keeps a link-dense article (3,300 links on wikipedia-2)
  // under the node cap with every link still carrying its ref.
  function lineOf(it, st) {
    let line = (it.ref !== null ? '@' + st.prefix + 'e' + it.ref + ' ' : '') + it.role;
    if (it.name) line += ' ' + JSON.stringify(clip(it.name, 100));
    if (it.info) line += ' ' + it.info;
    if (it.url) line += ' → ' + it.url;
    return line;
  }
  function tokenOf(it, st) {
    let tok = '@' + st.prefix + 'e' + it.ref + (it.role === 'link' ? '' : ' ' + it.role);
    if (it.name) tok += ' ' + JSON.stringify(clip(it.name, 100));
    if (it.info) tok += ' ' + it.info;
    if (it.url) tok += ' → ' + it.url;
    return tok;
  }
  // Whether an item can sit inside a line of text.
  const inlineRef = (it) => it.t === 'el' && it.ref !== null && !it.block && it.kids.every((k) => k.t === 'text' || k.t === 'sep');
  const hasWords = (s) => /[\p{L}\p{N}]/u.test(s);

  // Splits kids into flows: [{flow: [...text/sep/ref tokens]}] or {item}.
  function segments(kids) {
    const out = [];
    let flow = null;
    for (const k of kids) {
      if (k.t === 'text' || k.t === 'sep' || inlineRef(k)) {
        // Spaces and separators between items are layout, not a flow.
        if (!flow && (k === WS || k === SEP)) continue;
        if (!flow) { flow = []; out.push({ flow }); }
        flow.push(k);
      } else {
        flow = null;
        out.push({ item: k });
      }
    }
    return out;
  }

  // A flow's text is clipped (st.textClip characters in all), its refs never:
  // past the budget, text between refs shrinks to '…'.
  function flowText(flow, st) {
    let out = '';
    let budget = st.textClip;
    let elided = false;
    // A separator shows only between two things it separates, once.
    let sep = false;
    let any = false;
    for (const k of flow) {
      if (k === SEP) { sep = any; continue; }
      if (k === WS) { out += ' '; continue; }
      if (sep) { if (budget > 0) out += ' · '; sep = false; }
      any = true;
      if (k.t === 'text') {
        if (budget <= 0) { if (!elided && hasWords(k.s)) { out += '…'; elided = true; } continue; }
        const piece = clip(k.s, Math.max(budget, 2));
        budget -= piece.length;
        out += piece;
        elided = piece.endsWith('…');
      } else {
        out += ' ' + tokenOf(k, st) + ' ';
        elided = false;
      }
    }
    return norm(out);
  }

  function emitFlow(flow, depth, st, lines) {
    const words = flow.some((k) => k.t === 'text' && hasWords(k.s));
    const refs = flow.filter((k) => k.t === 'el');
    if (st.interactive || !words) {
      // No text around them: each ref on its own line.
      for (const r of refs) emitItem(r, st.interactive ? 0 : depth, st, lines);
      return;
    }
    if (st.depth !== null && depth > st.depth) return;
    push(lines, st, depth, 'text: ' + flowText(flow, st));
  }

  function emitItem(it, depth, st, lines) {
    if (st.full) return;
    if (it.t === 'frame') {
      if (st.depth !== null && depth > st.depth) return;
      push(lines, st, depth, 'iframe' + (it.name ? ' ' + JSON.stringify(clip(it.name, 100)) : ''));
      lines.push([depth + 1, null, it.i]);
      return;
    }
    if (st.interactive) {
      if (it.ref !== null) push(lines, st, 0, lineOf(it, st));
      emit(it.kids, 0, st, lines);
      return;
    }
    if (st.depth !== null && depth > st.depth) return;
    const segs = segments(it.kids);
    let line = lineOf(it, st);
    // A lone flow with words joins its element's line.
    if (segs.length === 1 && segs[0].flow && segs[0].flow.some((k) => k.t === 'text' && hasWords(k.s))) {
      const text = flowText(segs[0].flow, st);
      if (text && text !== it.name) line += ': ' + text;
      push(lines, st, depth, line);
      return;
    }
    push(lines, st, depth, line);
    emitSegments(segs, depth + 1, st, lines);
  }

  function emitSegments(segs, depth, st, lines) {
    for (const seg of segs) {
      if (st.full) return;
      if (seg.flow) emitFlow(seg.flow, depth, st, lines);
      else emitItem(seg.item, depth, st, lines);
    }
  }

  function emit(items, depth, st, lines) {
    emitSegments(segments(items), depth, st, lines);
  }

  function push(lines, st, depth, text) {
    if (st.full) return;
    const cost = depth + text.length + 1;
    if (lines.length >= st.maxNodes || st.chars + cost > st.maxChars) { st.full = true; st.truncated = true; return; }
    st.chars += cost;
    lines.push([depth, text]);
  }

  function resolve(ref) {
    const entry = W.byRef.get(ref);
    const el = entry && entry.el.deref();
    if (!el || !el.isConnected) return { stale: 'gone' };
    const role = roleOf(el) || 'clickable';
    const sig = (role === 'clickable' ? 'clickable' : role) + '|' + nameOf(el, role);
    if (sig !== entry.sig && !entry.sig.startsWith('clickable|')) return { stale: 'changed' };
    return { el };
  }

  function describe(el) {
    const r = W.refOf.get(el);
    const role = roleOf(el) || el.tagName.toLowerCase();
    const name = nameOf(el, role);
    return (r && W.byRef.has(r.ref) ? '@' + W.prefix + 'e' + r.ref + ' ' : '') + role + (name ? ' ' + JSON.stringify(clip(name, 60)) : '');
  }

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
  // path that takes clicks or is styled as clickable (a label stands for its
  // control). Null when nothing on the path is one.
  function activated(el) {
    for (let n = el; n; n = parentOf(n)) {
      if (n.nodeType !== 1) continue;
      if (takesClicks(n)) return n.tagName === 'LABEL' && n.control ? n.control : n;
      if (pointerOrigin(n)) return n;
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

  W.lib = {
    // Starts counting what an action sets off: DOM changes, and the frames
    // and timers the page asks for (by their ids), so settle() knows what to
    // wait for.
    watch() {
      if (W.mo) W.mo.disconnect();
      W.mutations = 0;
      W.restyles = 0;
      W.urlBefore = location.href;
      W.frameId = frameProbe();
      W.timerId = timerProbe();
      W.mo = new MutationObserver((list) => {
        W.mutations += list.length;
        for (const m of list) if (m.attributeName === 'style') W.restyles++;
      });
      W.mo.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      return true;
    },
    // The settle contract: once settle() returns, the DOM holds what the
    // action's handlers did or set off, as far as a page lets itself be asked:
    //  - changes made in the handlers and the microtasks after them (input is
    //    acknowledged after both; observer callbacks are microtasks, so the
    //    count is up to date when this runs);
    //  - changes made by zero-delay timers the handlers set (ours is set after
    //    theirs, and timers run in order);
    //  - changes made in the animation frames the handlers or those timers
    //    asked for (our frame callback runs after theirs), and by zero-delay
    //    timers those callbacks set; then frame after frame while each one
    //    changes the DOM and asks for another (a render spread over frames);
    //  - CSS transitions and animations the changes started get one frame, so
    //    they have begun when the caller looks.
    // Nothing changed and nothing asked for: it returns at once. Changed and
    // nothing asked for: the changes are complete, a snapshot reads them
    // directly (style and layout are computed when read), so no frame either.
    // Not awaited: timers with a delay, network responses, tasks the page
    // posts otherwise (postMessage, scheduler.postTask), resize and
    // intersection observers (they run after frame callbacks, in rendering);
    // `wait` is for those.
    // After input Chromium runs ordinary tasks only once the next frame is
    // drawn, so even a zero-delay turn costs a frame: taken only when the page
    // set a timer. At most maxMs in all.
    async settle(maxMs) {
      if (!W.mo) return 0;
      const start = performance.now();
      const left = () => maxMs - (performance.now() - start);
      const asked = (key, probe) => { const id = probe(); const n = id - W[key] - 1; W[key] = id; return n > 0; };
      // Style attributes rewritten every frame are a script animation, not a render.
      const changes = () => W.mutations - W.restyles;
      const changed = () => W.mutations > 0 || location.href !== W.urlBefore;
      if (asked('timerId', timerProbe)) await sleep(0);
      let more = asked('frameId', frameProbe) || (changed() && document.getAnimations().some((a) => a.pending));
      while (more && left() > 0) {
        const before = changes();
        await frameWithin(left());
        // Returning from inside the frame saves its rendering step (~3 ms
        // for a list re-render): a snapshot computes what it reads anyway.
        if (asked('timerId', timerProbe)) await sleep(0);
        more = asked('frameId', frameProbe) && changes() !== before;
      }
      W.mo.disconnect();
      W.mo = null;
      return W.mutations;
    },
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
    snapshot(opts) {
      W.pending = [];
      W.prefix = opts.prefix;
      const st = { next: opts.nextRef, prefix: opts.prefix, interactive: !!opts.interactive, depth: opts.depth ?? null,
        maxNodes: opts.maxNodes, maxChars: opts.maxChars, urls: !!opts.urls, textClip: opts.textClip || 160,
        chars: 0, visited: 0, truncated: false, stop: false, full: false };
      let root = document.body || document.documentElement;
      if (opts.scope !== null && opts.scope !== undefined) {
        const r = resolve(opts.scope);
        if (!r.el) return { error: 'stale' };
        root = r.el;
      }
      // <body> and <html> stand for the page (no line of their own), but
      // what they render is still theirs: a shadow root on <body> included.
      const items = [];
      if (root === document.body || root === document.documentElement) visitKids(childrenOf(root), st, true, false, items);
      else visit(root, st, true, false, items);
      const lines = [];
      emit(items, 0, st, lines);
      return { lines, nextRef: st.next, truncated: st.truncated, frames: W.pending.length,
        title: document.title, url: location.href };
    },
    // The iframe element met by the last walk, kept under a frame ordinal for later offset lookups.
    frame(i, ordinal) { const el = W.pending[i]; if (el) W.frames.set(ordinal, new WeakRef(el)); return el || null; },
    // Where a child frame's viewport starts, in this frame's viewport.
    frameOffset(ordinal) {
      const el = W.frames.get(ordinal) && W.frames.get(ordinal).deref();
      if (!el || !el.isConnected) return null;
      const r = el.getBoundingClientRect();
      const s = getComputedStyle(el);
      return [r.left + el.clientLeft + parseFloat(s.paddingLeft), r.top + el.clientTop + parseFloat(s.paddingTop)];
    },
    resolve,
    describe,
    element(target) {
      if (typeof target === 'number') {
        const r = resolve(target);
        return r.el ? { el: r.el } : r;
      }
      let el;
      try { el = deepQuery(target); } catch (e) { return { invalid: String(e.message) }; }
      return el ? { el } : { missing: true };
    },
  };
})();
