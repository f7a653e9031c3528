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


  Object.assign(lib, {
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
  });
