// webrig's page library. Installed once per document into webrig's isolated
// world (page scripts cannot see or tamper with it) as globalThis.__webrig.
// It computes roles, accessible names and states itself (a DOM walk is ~100x
// cheaper than Accessibility.getFullAXTree), keeps the ref <-> node maps, and
// checks actionability. Everything it returns is plain JSON.
//
// The library is these files joined in order inside one function
// (`frames.rs` PAGE_LIB): core.js (roles, names, states, refs), outline.js
// (the snapshot walk), act.js (actionability, form calls), settle.js
// (waiting for what an action set off), locate.js (locators: text=, role=,
// label=, …), annotate.js (the overlay a person points with), end.js
// (publishes `lib`). Each adds its calls to `lib`.
(() => {
  if (globalThis.__webrig && globalThis.__webrig.lib) return;
  const W = (globalThis.__webrig = {
    refOf: new WeakMap(), // Element -> {ref, sig}
    byRef: new Map(), // ref number -> {el: WeakRef, sig}
    frames: new Map(), // frame ordinal -> WeakRef(iframe element)
    pending: [], // iframe elements met by the last walk, in order
  });
  const lib = {};

  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'BASE', 'PARAM', 'SOURCE', 'TRACK']);
  // Roles named by their content. Cells and headers are too in ARIA, but in an
  // outline that repeats every cell's text; they show their content instead.
  const NAME_FROM_CONTENT = new Set(['button', 'link', 'heading', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
    'option', 'checkbox', 'radio', 'switch', 'treeitem', 'tooltip', 'clickable', 'summary']);
  // Inputs that are not free text show their type as their role
  // (`@e43 date "Departure" value=""`): what `fill` expects differs.
  const TYPED_INPUTS = new Set(['color', 'date', 'datetime-local', 'month', 'time', 'week']);
  const INTERACTIVE = new Set(['link', 'button', 'checkbox', 'radio', 'switch', 'textbox', 'searchbox', 'combobox', 'listbox',
    'slider', 'spinbutton', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'treeitem', 'clickable', ...TYPED_INPUTS]);
  const VALUE_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton', 'slider', ...TYPED_INPUTS]);
  const LANDMARK_TAGS = { NAV: 'navigation', MAIN: 'main', ASIDE: 'complementary', ARTICLE: 'article', DIALOG: 'dialog',
    UL: 'list', OL: 'list', MENU: 'list', LI: 'listitem', TABLE: 'table',
    TR: 'row', TD: 'cell', P: 'paragraph', BLOCKQUOTE: 'blockquote', FIELDSET: 'group', PROGRESS: 'progressbar', METER: 'meter',
    TEXTAREA: 'textbox', OPTION: 'option', DL: 'list', DT: 'term', DD: 'definition', FIGURE: 'figure', HR: 'separator',
    OUTPUT: 'status', CODE: 'code', PRE: 'code', SUMMARY: 'summary', IFRAME: 'iframe', FRAME: 'iframe' };
  // (A table's head, body and foot sections carry no line of their own: rows
  // show directly under their table.)
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
        if (TYPED_INPUTS.has(t)) return t;
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
      if (v || TYPED_INPUTS.has(role)) parts.push('value=' + JSON.stringify(clip(v || '', 80)));
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

  // --- What a person could click, and what to call it. ---

  // Elements the page's own script listens on for clicks, as the main-world
  // hooks (hooks.js) report them: `collectListened()` asks for the ones
  // added since the last walk.
  W.listened = new WeakSet();
  addEventListener('__webrig_hooks_mark', (e) => {
    const t = e.composedPath()[0];
    if (t && t.nodeType === 1) W.listened.add(t);
  }, true);
  function collectListened() {
    document.dispatchEvent(new CustomEvent('__webrig_hooks_ask'));
  }

  // Whether `el` (visible, with a box, and no interactive role of its own)
  // is something a person could click: the page listens on it for clicks,
  // it has an onclick attribute or a tabindex, it is an <a> without href, or
  // it is styled as clickable (cursor: pointer where its parent's is not, or
  // an item of a clickable list: the items of a dropdown inherit the cursor
  // from it).
  function clickTarget(el, style, view) {
    if (W.listened.has(el) || el.hasAttribute('onclick')) return true;
    const tag = el.tagName;
    if (tag === 'LABEL') return false;
    if (tag === 'A' && !el.hasAttribute('name')) return true;
    if (el.tabIndex >= 0 && el.hasAttribute('tabindex')) return true;
    if (style.cursor !== 'pointer') return false;
    const p = el.parentElement;
    if (!p || view.getComputedStyle(p).cursor !== 'pointer') return true;
    return listItemOf(el, p);
  }
  const NOT_ITEMS = new Set(['P', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'IMG', 'TD', 'TH', 'TR', 'TBODY', 'THEAD', 'BR', 'SVG', 'svg']);
  // An item of a list its parent holds: a <li>, or one of two or more
  // siblings of the same tag and class, each with a little text.
  function listItemOf(el, p) {
    if (NOT_ITEMS.has(el.tagName)) return false;
    const text = el.textContent;
    if (!text || text.length > 200 || !/[\p{L}\p{N}]/u.test(text)) return false;
    if (el.tagName === 'LI') return true;
    if (!el.className || typeof el.className !== 'string') return false;
    let same = 0;
    let n = 0;
    for (let k = p.firstElementChild; k && n < 50; k = k.nextElementSibling, n++) {
      if (k !== el && k.tagName === el.tagName && k.className === el.className) same++;
    }
    return same > 0;
  }

  // A name for a control that has none from its content: its title, the
  // label of the icon drawn in it (an <svg><title>, an <img alt>, a child's
  // aria-label or title), then its description.
  function fallbackName(el) {
    const title = el.getAttribute('title');
    if (title && title.trim()) return norm(title);
    const inner = el.querySelector('[aria-label], [title], img[alt], svg > title');
    if (inner) {
      const t = inner.tagName.toLowerCase() === 'title' ? inner.textContent
        : inner.getAttribute('aria-label') || inner.getAttribute('title') || inner.getAttribute('alt');
      if (t && t.trim()) return norm(t);
    }
    const described = byIds(el, 'aria-describedby');
    // A description may be hidden (a tooltip's text): it still counts.
    if (described.length) return norm(described.map((n) => textOf(n, 1) || n.textContent).join(' '));
    return '';
  }

  // Icon sets name their glyphs in class names (`fa-reply`, `icon-send`,
  // `bi-trash`) or in SVG sprite references (`<use href="#icon-back">`).
  const ICON_CLASS = /^(?:icons?|fa[srlbdt]?|bi|glyphicon|ti|tabler|mdi|ion|ionicons?|la[srb]?|octicon|codicon|ri|bx[sl]?|fe|feather|lucide|ph|heroicon|ico|gg|uil|entypo|typcn|wi|flaticon|material-icons|material-symbols)[-_]+([a-z][\w-]*)$/i;
  const GENERIC_CLASS = /^(?:(?:xs|sm|md|lg|xl|[0-9]+x|fw|solid|regular|light|thin|brands|duotone|outline|outlined|filled|fill|rounded|sharp|spin|pulse|border|inverse|stack|flip|rotate|size|color)(?:[-_].*)?|[0-9].*)$/i;
  // Words that say "this is a control" rather than which one.
  const FILLER = new Set(['btn', 'button', 'icon', 'icons', 'action', 'actions', 'item', 'link', 'js', 'ui', 'wrapper', 'container',
    'control', 'clickable', 'toolbar', 'tool', 'svg', 'img', 'image', 'glyph', 'symbol', 'active', 'selected', 'disabled',
    'hover', 'focus', 'left', 'right', 'small', 'large', 'big', 'default', 'primary', 'secondary', 'round', 'circle', 'inline']);
  // A hint drawn from class names (`"reply" (from class)`) or an icon
  // font's ligature (`"send" (from icon)`): [text, source] or null.
  // Whether `text` in an element of class `cls` is an icon font's ligature
  // (`<span class="material-icons">send</span>`).
  const ligature = (text, cls) => /^[a-z][a-z0-9_]{1,30}$/.test(text) && /icon|symbol|material/i.test(String(cls || ''));
  function hintOf(el) {
    const own = el.childElementCount === 0 ? norm(el.textContent) : '';
    if (ligature(own, el.getAttribute('class'))) return [own.replace(/_/g, ' '), 'icon'];
    const seen = [el, ...el.querySelectorAll('i, span, svg, use, img')].slice(0, 8);
    for (const n of seen) {
      const lig = n !== el && n.childElementCount === 0 ? norm(n.textContent) : '';
      if (ligature(lig, n.getAttribute('class'))) return [lig.replace(/_/g, ' '), 'icon'];
      const href = n.tagName === 'use' ? n.getAttribute('href') || n.getAttribute('xlink:href') || '' : '';
      const sprite = /#(?:icon[-_])?([a-z][\w-]*)$/i.exec(href);
      if (sprite) return [words(sprite[1]), 'icon'];
      const cls = (n.getAttribute('class') || '').split(/\s+/);
      for (const c of cls) {
        const m = ICON_CLASS.exec(c);
        if (m && !GENERIC_CLASS.test(m[1])) return [words(m[1]), 'class'];
      }
    }
    for (const n of seen) {
      for (const c of (n.getAttribute('class') || '').split(/\s+/).reverse()) {
        const w = classWords(c);
        if (w) return [w, 'class'];
      }
    }
    return null;
  }
  const words = (s) => s.replace(/[-_]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().trim();
  // A class name's meaningful words (`tweet-reply-btn` → "tweet reply"),
  // or '' for generated names (`css-1x2y3z`, `_3kTq`) and pure filler.
  function classWords(c) {
    if (!/^[a-zA-Z][a-zA-Z-_]{2,39}$/.test(c) || /^(?:css|sc|jsx|svelte|emotion|styled)[-_]/.test(c)) return '';
    const parts = words(c).split(' ').filter((w) => w.length > 1 && !FILLER.has(w) && !/^(?:is|has|js|u|c|m|l|o)$/.test(w));
    // Hashed names mix cases and consonant runs: keep only plain words.
    if (!parts.length || parts.some((w) => !/^[a-z]+$/.test(w) || !/[aeiouy]/.test(w))) return '';
    return parts.join(' ');
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

