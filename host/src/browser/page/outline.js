  // --- The snapshot walk: the item tree, then lines. ---

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

  // Hands `item` (for `el`) a ref.
  function giveRef(item, el, sig, st) {
    item.ref = refFor(el, sig, st);
    st.refs++;
  }

  // A name longer than this is not a name: the content shows instead.
  const NAME_MAX = 100;

  // Builds the item tree into `out`: {t:'el', role, name, info, ref, kids} |
  // {t:'text', s, n} | WS | SEP | {t:'frame', i, name}.
  function visit(node, st, parentVisible, inLabel, out) {
    if (st.stop) return;
    if (node.nodeType === 3) {
      if (!parentVisible || inLabel) return;
      // \s takes in no-break spaces too: they print as plain spaces.
      const s = node.data.replace(/\s+/g, ' ');
      if (s === ' ') pushWs(out);
      else if (s) { out.push({ t: 'text', s, n: node }); st.text += s.length; }
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
    if (!role && el.tagName === 'SUMMARY') role = 'button';
    // Something a person could click without a role that says so.
    const click = visible && !INTERACTIVE.has(role) && clickTarget(el, style, view) && hasBox(el);
    if (click && !role) role = 'clickable';
    const label = el.tagName === 'LABEL' && el.control ? true : inLabel;
    const childless = (role === 'combobox' && el.tagName === 'SELECT') || role === 'textbox' || role === 'searchbox' || TYPED_INPUTS.has(role);
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
    const refsBefore = st.refs;
    const kids = childless ? [] : visitKids(childrenOf(el), st, visible, label, []);
    if (click) { clickItem(el, role, block, kids, st.refs - refsBefore, st, out); return; }
    const name = nameOf(el, role);
    const item = { t: 'el', el, role, name, info: states(el, role), ref: null, kids, block };
    // A control drawn by its label (a hidden checkbox behind a styled label)
    // is still one an agent can act on: actions aim at the label.
    const reachable = hasBox(el) || (el.labels && [...el.labels].some((l) => hasBox(l)));
    if (INTERACTIVE.has(role) && reachable) {
      giveRef(item, el, role + '|' + name, st);
      if (role === 'link' && st.urls && el.href) item.url = String(el.href);
      if (!name) named(item, el);
    }
    if (NAME_FROM_CONTENT.has(role) && name) {
      // Its text is its name: keep only nested things an agent can act on.
      item.kids = flattenRefs(kids);
    }
    out.push(item);
  }

  // A ref'd control without a name gets the best one left: a title, an
  // icon's label, a description, else a hint from its classes or icon.
  function named(item, el) {
    item.name = fallbackName(el);
    if (item.name) return;
    const hint = hintOf(el);
    if (hint) { item.name = hint[0]; item.hint = hint[1]; }
  }

  // An element a person could click that has no interactive role (a span
  // with a click listener, a pointer-styled list item). Its own text is its
  // name when short; clickable things inside keep refs of their own, never
  // folded into its line. A box whose content is only such things (a menu
  // of items, a row of icons) is a container, not a control: no ref.
  function clickItem(el, role, block, kids, inner, st, out) {
    const own = ownText(kids, NAME_MAX + 1);
    if (inner > 5 || (inner > 0 && !own)) {
      if (role === 'clickable') { spill(out, kids, block); return; }
      out.push({ t: 'el', el, role, name: nameOf(el, role), info: states(el, role), ref: null, kids, block });
      return;
    }
    const item = { t: 'el', el, role, name: role === 'clickable' ? nameOf(el, null) : nameOf(el, role), info: states(el, role), ref: null, kids, block };
    const flat = own.length <= NAME_MAX && !structured(kids);
    if (!item.name && own && flat) {
      item.name = own;
      // An icon font's ligature (`<span class="material-icons">send</span>`).
      if (ligature(own, el.getAttribute('class'))) item.hint = 'icon';
    }
    giveRef(item, el, 'clickable|' + item.name, st);
    if (!item.name && !own) named(item, el);
    // A card: named by its first heading, its content shown beneath.
    if (!item.name && !flat) item.name = headingIn(kids);
    if (item.name && flat) item.kids = flattenRefs(kids);
    out.push(item);
  }

  function headingIn(items) {
    for (const k of items) {
      if (k.t !== 'el') continue;
      if (k.role === 'heading') return k.name;
      const inner = k.ref === null ? headingIn(k.kids) : '';
      if (inner) return inner;
    }
    return '';
  }

  // The text of `items` outside elements with refs, up to `max` characters.
  function ownText(items, max) {
    let s = '';
    const add = (list) => {
      for (const k of list) {
        if (s.length > max) return;
        if (k === WS || k === SEP) s += ' ';
        else if (k.t === 'text') s += k.s;
        else if (k.t === 'el' && k.ref === null) add(k.kids);
      }
    };
    add(items);
    return norm(s);
  }
  // Whether items hold structure of their own (a list, a heading, a table)
  // that a one-line name would flatten away.
  function structured(items) {
    return items.some((k) => k.t === 'frame' || (k.t === 'el' && k.ref === null && (k.block || structured(k.kids))));
  }
  // Appends items to a parent's flow as if they were its own.
  function spill(out, items, block) {
    if (block) pushSep(out);
    for (const k of items) {
      if (k === WS) pushWs(out);
      else if (k === SEP) pushSep(out);
      else out.push(k);
    }
    if (block) pushSep(out);
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
  //
  // Text is shortened only when the page's text is over the snapshot's
  // text budget (st.clipping), and a shortened line says how to read the
  // rest: `… (+312 chars: text @e41)`. Refs are never dropped.
  const ref = (it, st) => '@' + st.prefix + 'e' + it.ref;
  function nameOf_(it, st) {
    const max = NAME_MAX;
    if (it.name.length <= max) return JSON.stringify(it.name) + (it.hint ? ' (from ' + it.hint + ')' : '');
    return JSON.stringify(clip(it.name, max)) + ' (+' + (it.name.length - max + 1) + ' chars: text ' + ref(it, st) + ')';
  }
  function lineOf(it, st) {
    let line = (it.ref !== null ? ref(it, st) + ' ' : '') + it.role;
    if (it.name) line += ' ' + (it.ref !== null ? nameOf_(it, st) : JSON.stringify(clip(it.name, NAME_MAX)));
    if (it.info) line += ' ' + it.info;
    if (it.url) line += ' → ' + it.url;
    return line;
  }
  function tokenOf(it, st) {
    let tok = ref(it, st) + (it.role === 'link' ? '' : ' ' + it.role);
    if (it.name) tok += ' ' + nameOf_(it, st);
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

  // A flow's text: when clipping, st.textClip characters in all, its refs
  // never (past the budget, text between refs shrinks to '…'), and the
  // line ends with how much was left out and where to read it (`owner`, the
  // element whose line it is, else the element that holds the flow).
  function flowText(flow, st, owner) {
    let out = '';
    let budget = st.clipping ? st.textClip : Infinity;
    let elided = false;
    let omitted = 0;
    // A separator shows only between two things it separates, once.
    let sep = false;
    let any = false;
    for (const k of flow) {
      if (k === SEP) { sep = any; continue; }
      if (k === WS) { out += ' '; continue; }
      if (sep) { if (budget > 0) out += ' · '; sep = false; }
      any = true;
      if (k.t === 'text') {
        if (budget <= 0) {
          omitted += k.s.length;
          if (!elided && hasWords(k.s)) { out += '…'; elided = true; }
          continue;
        }
        const piece = clip(k.s, Math.max(budget, 2));
        budget -= piece.length;
        out += piece;
        elided = piece.length < k.s.length;
        if (elided) omitted += k.s.length - piece.length + 1;
      } else {
        out += ' ' + tokenOf(k, st) + ' ';
        elided = false;
      }
    }
    out = norm(out);
    if (omitted > 0) {
      const at = readRef(owner, flow, st);
      out += ' (+' + omitted + ' chars' + (at ? ': text ' + at : '') + ')';
    }
    return out;
  }

  // A ref to read a shortened line's whole text from: its element's ref,
  // or one handed to the element holding the flow.
  function readRef(owner, flow, st) {
    if (owner && owner.ref !== null) return ref(owner, st);
    const el = owner ? owner.el : holder(flow);
    if (!el) return null;
    const r = refFor(el, 'clickable|', st);
    if (owner) owner.ref = r;
    return '@' + st.prefix + 'e' + r;
  }
  // The nearest element holding every text of a flow.
  function holder(flow) {
    const texts = flow.filter((k) => k.n);
    if (!texts.length) return null;
    const up = (n) => n.parentElement || (n.parentNode && n.parentNode.host) || null;
    const chain = new Set();
    for (let n = up(texts[0].n); n; n = up(n)) chain.add(n);
    let n = up(texts[texts.length - 1].n);
    while (n && !chain.has(n)) n = up(n);
    return n;
  }

  function emitFlow(flow, depth, st, lines, owner) {
    const words = flow.some((k) => k.t === 'text' && hasWords(k.s));
    const refs = flow.filter((k) => k.t === 'el');
    if (st.interactive) {
      if (refs.length) context(st, lines, refs[0]);
      else if (words) remember(flow, st);
      for (const r of refs) emitItem(r, 0, st, lines);
      return;
    }
    if (!words) {
      // No text around them: each ref on its own line.
      for (const r of refs) emitItem(r, depth, st, lines);
      return;
    }
    if (st.depth !== null && depth > st.depth) return;
    push(lines, st, depth, 'text: ' + flowText(flow, st, owner));
  }

  // `-i` keeps the line above each group of refs that says what they are
  // for: the nearest heading, named group (a fieldset's legend, a dialog,
  // a table's caption) or short line of text (a calendar's month title).
  const CONTEXT_ROLES = new Set(['heading', 'group', 'dialog', 'alertdialog', 'form', 'region', 'table', 'radiogroup',
    'tabpanel', 'menu', 'toolbar', 'tablist', 'listbox', 'tree', 'grid']);
  const CONTEXT_MAX = 60;
  const CELLS = new Set(['cell', 'columnheader', 'rowheader', 'gridcell']);
  function remember(flow, st) {
    if (st.inCell) return;
    let n = 0;
    for (const k of flow) if (k.t === 'text') n += k.s.length;
    if (n > 2 * CONTEXT_MAX) { st.ctx = null; return; }
    const text = flowText(flow, st, null);
    st.ctx = text.length <= CONTEXT_MAX ? 'text: ' + text : null;
  }
  // Pushes the remembered context line before `it`'s, unless `it` says the
  // same (a heading whose link bears its words).
  function context(st, lines, it) {
    if (st.ctx && !(it && it.name && st.ctx.includes(JSON.stringify(clip(it.name, NAME_MAX))))) push(lines, st, 0, st.ctx);
    st.ctx = null;
  }

  function emitItem(it, depth, st, lines) {
    if (st.full) return;
    if (it.t === 'frame') {
      if (st.depth !== null && depth > st.depth) return;
      push(lines, st, depth, 'iframe' + (it.name ? ' ' + JSON.stringify(clip(it.name, NAME_MAX)) : ''));
      lines.push([depth + 1, null, it.i]);
      return;
    }
    if (st.interactive) {
      // A row with controls shows whole: its cells say which row they act on.
      if (it.role === 'row' && it.ref === null && it.kids.some((k) => k.t === 'el' && hasRef(k))) {
        const cells = rowText(it, st);
        if (cells !== null) { context(st, lines); push(lines, st, 0, lineOf(it, st) + ': ' + cells); return; }
      }
      if (it.ref !== null) {
        context(st, lines, it);
        push(lines, st, 0, lineOf(it, st));
      } else if (it.name && CONTEXT_ROLES.has(it.role)) {
        st.ctx = lineOf(it, st);
      }
      // A header cell's or a cell's text labels a column, not a group.
      const cell = CELLS.has(it.role);
      if (cell) st.inCell++;
      emit(it.kids, 0, st, lines, it);
      if (cell) st.inCell--;
      return;
    }
    if (st.depth !== null && depth > st.depth) return;
    // A table row of plain cells is one line: `row: 1003 | Grace | $30`.
    const cells = it.role === 'row' && it.ref === null ? rowText(it, st) : null;
    if (cells !== null) { push(lines, st, depth, lineOf(it, st) + ': ' + cells); return; }
    const segs = segments(it.kids);
    // A lone flow with words joins its element's line.
    if (segs.length === 1 && segs[0].flow && segs[0].flow.some((k) => k.t === 'text' && hasWords(k.s))) {
      // The line is made first: a ref the flow's marker hands the element
      // shows in the marker only.
      let line = lineOf(it, st);
      const text = flowText(segs[0].flow, st, it);
      if (text && text !== it.name) line += ': ' + text;
      push(lines, st, depth, line);
      return;
    }
    // A bare container of one control (a cell holding a link, a list item
    // holding a menu item) is one line: `cell: @e42 link "1"`.
    const only = segs.length === 1 && (segs[0].item || loneRef(segs[0].flow));
    if (only && only.t === 'el' && only.ref !== null && !only.kids.length && it.ref === null && !it.name && !it.info) {
      push(lines, st, depth, lineOf(it, st) + ': ' + lineOf(only, st));
      return;
    }
    push(lines, st, depth, lineOf(it, st));
    emitSegments(segs, depth + 1, st, lines, it);
  }

  // A row's cells joined by ` | ` (a cell with a ref shows it, a cell
  // holding one control shows that control), or null when a cell holds more
  // than a line (a list, a nested table, two controls).
  function rowText(it, st) {
    const parts = [];
    for (const k of it.kids) {
      if (k === WS || k === SEP) continue;
      if (k.t !== 'el' || !CELLS.has(k.role)) return null;
      const segs = segments(k.kids);
      let text = '';
      if (segs.length > 1) return null;
      if (segs.length === 1 && segs[0].flow) text = flowText(segs[0].flow, st, k);
      else if (segs.length === 1) {
        const only = segs[0].item;
        if (only.t !== 'el' || only.ref === null || only.kids.length) return null;
        text = lineOf(only, st);
      }
      if (k.ref !== null) text = lineOf(k, st) + (text && text !== k.name ? ': ' + text : '');
      parts.push(text);
    }
    return parts.length ? parts.join(' | ') : null;
  }

  const hasRef = (it) => it.ref !== null || it.kids.some((k) => k.t === 'el' && hasRef(k));

  // The one ref of a flow without words, if it has only one.
  function loneRef(flow) {
    let found = null;
    for (const k of flow) {
      if (k.t === 'el') { if (found) return null; found = k; }
      else if (k.t === 'text' && hasWords(k.s)) return null;
    }
    return found;
  }

  function emitSegments(segs, depth, st, lines, owner) {
    for (const seg of segs) {
      if (st.full) return;
      if (seg.flow) emitFlow(seg.flow, depth, st, lines, owner);
      else emitItem(seg.item, depth, st, lines);
    }
  }

  function emit(items, depth, st, lines, owner) {
    emitSegments(segments(items), depth, st, lines, owner);
  }

  function push(lines, st, depth, text) {
    if (st.full) return;
    const cost = depth + text.length + 1;
    if (lines.length >= st.maxNodes || st.chars + cost > st.maxChars) { st.full = true; st.truncated = true; return; }
    st.chars += cost;
    lines.push([depth, text]);
  }


  Object.assign(lib, {
    snapshot(opts) {
      W.pending = [];
      W.prefix = opts.prefix;
      collectListened();
      const st = { next: opts.nextRef, prefix: opts.prefix, interactive: !!opts.interactive, depth: opts.depth ?? null,
        maxNodes: opts.maxNodes, maxChars: opts.maxChars, urls: !!opts.urls, textClip: opts.textClip || 160,
        textBudget: opts.textBudget || 6000, text: 0, clipping: false, ctx: null, inCell: 0, refs: 0,
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
      // Text is shortened only on a page with more of it than the budget.
      st.clipping = st.text > st.textBudget;
      const lines = [];
      emit(items, 0, st, lines, null);
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
  });
