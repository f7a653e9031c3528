(() => {
  // The page's design tokens from its computed styles (WIT `design.tokens`).
  // One expression, evaluated in the page with returnByValue: no imports, no
  // network. Areas are painted pixels in page coordinates, clipped to the
  // document: backgrounds by their box minus the painted boxes drawn over
  // them, text colours and fonts by their text boxes, borders by their strips.
  // `background` is the canvas (or a box covering most of the page),
  // `foreground` the text colour with the most text area.
  // Bounded: at most 3000 elements visited; invisible ones are skipped.
  // Also how the page arrived, so a reader can tell a design from an error
  // page or a page whose styles never loaded: `status` (the document's HTTP
  // status, 0 when unknown) and `stylesheets` ({linked, failed: [url]}).
  const MAX_ELEMENTS = 3000;
  // Larger margins, paddings and gaps place blocks (sidebars, columns): they
  // are layout, not a spacing scale.
  const MAX_SPACING = 160;
  const doc = document.documentElement;
  const nav = (performance.getEntriesByType('navigation') || [])[0];
  const status = (nav && nav.responseStatus) || 0;
  // A linked stylesheet failed when it has no `sheet` (blocked, still
  // loading), its resource entry has an HTTP error status, or it is readable
  // and empty (what an error answer leaves). Cross-origin status is 0
  // (unknown) and does not count.
  const links = [...document.querySelectorAll('link[rel~="stylesheet" i][href]')].filter(
    (l) => !/\balternate\b/i.test(l.rel) && !l.disabled,
  );
  const sheetFailed = (l) => {
    if (!l.sheet) return true;
    const entry = performance.getEntriesByName(l.href).find((e) => e.entryType === 'resource');
    if (entry && entry.responseStatus >= 400) return true;
    try {
      return l.sheet.cssRules.length === 0;
    } catch (e) {
      return false;
    }
  };
  const stylesheets = {
    linked: links.length,
    failed: links.filter(sheetFailed).map((l) => String(l.href).slice(0, 300)).slice(0, 8),
  };
  if (!doc) {
    return { palette: [], fonts: [], type_scale: [], spacing: [], radii: [], shadows: [], background: '#ffffff', foreground: '#000000', status, stylesheets };
  }
  const sx = window.scrollX || 0;
  const sy = window.scrollY || 0;
  const body = document.body;
  const docW = Math.max(doc.scrollWidth, body ? body.scrollWidth : 0, window.innerWidth || 0);
  const docH = Math.max(doc.scrollHeight, body ? body.scrollHeight : 0, window.innerHeight || 0);

  // Area of a viewport rect once placed in the page and clipped to it.
  const clipped = (r) => {
    const x0 = Math.max(0, r.left + sx);
    const y0 = Math.max(0, r.top + sy);
    const x1 = Math.min(docW, r.right + sx);
    const y1 = Math.min(docH, r.bottom + sy);
    return x1 > x0 && y1 > y0 ? (x1 - x0) * (y1 - y0) : 0;
  };

  // Colours: any CSS colour → [r, g, b, a] (0..255, alpha 0..1), through a
  // 1×1 canvas for what is not rgb()/rgba() (color(), oklch(), names).
  const cache = new Map();
  let ctx = null;
  const rgba = (value) => {
    if (!value || value === 'transparent') return null;
    if (cache.has(value)) return cache.get(value);
    let out = null;
    const m = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+)(%?))?\s*\)$/.exec(value);
    if (m) {
      let a = m[4] === undefined ? 1 : parseFloat(m[4]);
      if (m[5]) a /= 100;
      out = [+m[1], +m[2], +m[3], a];
    } else {
      try {
        if (!ctx) {
          const c = document.createElement('canvas');
          c.width = c.height = 1;
          ctx = c.getContext('2d', { willReadFrequently: true });
        }
        ctx.clearRect(0, 0, 1, 1);
        ctx.fillStyle = '#000000';
        ctx.fillStyle = value;
        ctx.fillRect(0, 0, 1, 1);
        const d = ctx.getImageData(0, 0, 1, 1).data;
        out = [d[0], d[1], d[2], d[3] / 255];
      } catch (e) {
        out = null;
      }
    }
    cache.set(value, out);
    return out;
  };
  const hex = (c) => '#' + c.slice(0, 3).map((v) => Math.round(Math.min(255, Math.max(0, v))).toString(16).padStart(2, '0')).join('');

  // The canvas colour: the root's background, else the body's (CSS
  // propagates it), else white.
  const canvasOf = () => {
    for (const el of [doc, body]) {
      if (!el) continue;
      const c = rgba(getComputedStyle(el).backgroundColor);
      if (c && c[3] > 0.01) return c[3] >= 1 ? c : [...blend(c, [255, 255, 255]), 1];
    }
    return [255, 255, 255, 1];
  };
  const blend = (c, under) => [0, 1, 2].map((i) => c[i] * c[3] + under[i] * (1 - c[3]));
  const canvas = canvasOf();
  // A colour as #rrggbb: translucent ones blended on the page background,
  // nearly transparent ones dropped (null).
  const norm = (value) => {
    const c = rgba(value);
    if (!c || c[3] < 0.02) return null;
    return hex(c[3] >= 1 ? c : blend(c, canvas));
  };

  const bgArea = new Map(); // colour → painted area
  const textArea = new Map();
  const borderArea = new Map();
  const fontArea = new Map();
  const sizes = new Map(); // rounded px → text area
  const spacing = new Map(); // rounded px → uses
  const radii = new Map();
  const shadows = new Map();
  const add = (map, key, n) => map.set(key, (map.get(key) || 0) + n);

  // Painted boxes: each element that paints a background takes its area
  // off the nearest painting ancestor's (or the canvas's).
  const painters = new Map(); // element → {colors, area}
  // The page background: the deepest painted box covering most of the
  // document (a full-page wrapper), else the canvas.
  let cover = null;
  const canvasRec = { colors: [hex(canvas)], area: docW * docH };
  const painterAbove = (el) => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const rec = painters.get(p);
      if (rec) return rec;
    }
    return canvasRec;
  };
  const px = (v) => {
    const n = parseFloat(v);
    return Number.isFinite(n) ? n : 0;
  };
  // Spacing a rule does not state as a length: `auto` (centring) and
  // values relative to the layout (%, vw, calc(), …). Read from the rules
  // the page's readable stylesheets give (cross-origin ones throw) and from
  // inline styles; bounded to 5000 rules and 200 selectors.
  const SPACING_PROPS = ['marginTop', 'marginRight', 'marginBottom', 'marginLeft', 'paddingTop', 'paddingRight', 'paddingBottom', 'paddingLeft', 'rowGap', 'columnGap'];
  const LOGICAL = { marginLeft: ['marginInlineStart', 'marginInline'], marginRight: ['marginInlineEnd', 'marginInline'], paddingLeft: ['paddingInlineStart', 'paddingInline'], paddingRight: ['paddingInlineEnd', 'paddingInline'] };
  const relative = (v) => !!v && /auto|%|vw|vh|vmin|vmax|calc|min\(|max\(|clamp|fit-content/i.test(v);
  const relativeProps = (style) => {
    const out = [];
    for (const prop of SPACING_PROPS) {
      const vals = [style[prop], ...(LOGICAL[prop] || []).map((p) => style[p])];
      if (vals.some(relative)) out.push(prop);
    }
    return out;
  };
  const layoutRules = []; // {selector, props}
  let rulesSeen = 0;
  const collect = (rules, depth) => {
    for (const rule of rules) {
      if (++rulesSeen > 5000 || layoutRules.length >= 200) return;
      if (rule.selectorText && rule.style) {
        const props = relativeProps(rule.style);
        if (props.length) layoutRules.push({ selector: rule.selectorText, props });
      }
      if (rule.cssRules && depth < 4) {
        try {
          collect(rule.cssRules, depth + 1);
        } catch (e) {
          // An unreadable group: skipped.
        }
      }
    }
  };
  for (const sheet of document.styleSheets) {
    try {
      collect(sheet.cssRules, 0);
    } catch (e) {
      // Cross-origin: not readable.
    }
  }
  const layoutProps = (el, s) => {
    const out = new Set(relativeProps(el.style || {}));
    for (const r of layoutRules) {
      try {
        if (el.matches(r.selector)) for (const p of r.props) out.add(p);
      } catch (e) {
        // A selector this engine cannot match here (pseudo-elements).
      }
    }
    // Centring that no readable rule explains (a cross-origin sheet): equal
    // side margins on a box whose width is capped.
    const ml = px(s.marginLeft);
    const mr = px(s.marginRight);
    if (ml > 0 && Math.abs(ml - mr) <= 1 && s.maxWidth !== 'none') {
      out.add('marginLeft');
      out.add('marginRight');
    }
    return out;
  };
  const range = document.createRange();
  const canCheck = typeof Element.prototype.checkVisibility === 'function';

  let visited = 0;
  const stack = body ? [body] : [];
  const isRootPainter = (el) => el === body; // body/root paint the canvas
  while (stack.length && visited < MAX_ELEMENTS) {
    const el = stack.pop();
    visited++;
    const s = getComputedStyle(el);
    if (s.display === 'none') continue; // nothing below renders either
    for (let i = el.children.length - 1; i >= 0; i--) stack.push(el.children[i]);
    if (s.visibility === 'hidden' || s.visibility === 'collapse') continue;
    if (canCheck && !el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) continue;
    const area = clipped(r);
    if (area <= 0) continue;

    // Background: a colour, or the colours a gradient is drawn with.
    if (!isRootPainter(el)) {
      const colors = [];
      const bg = norm(s.backgroundColor);
      if (bg) colors.push(bg);
      if (s.backgroundImage && s.backgroundImage.includes('gradient')) {
        const stops = s.backgroundImage.match(/rgba?\([^)]*\)|#[0-9a-f]{3,8}\b/gi) || [];
        for (const stop of stops) {
          const c = norm(stop);
          if (c) colors.push(c);
        }
      }
      if (colors.length) {
        const above = painterAbove(el);
        above.area -= area;
        painters.set(el, { colors, area });
        if (area >= 0.6 * docW * docH) cover = colors[0];
      }
    }

    // Borders: each visible side's strip.
    for (const [side, len] of [['Top', r.width], ['Right', r.height], ['Bottom', r.width], ['Left', r.height]]) {
      const w = px(s['border' + side + 'Width']);
      const style = s['border' + side + 'Style'];
      if (w <= 0 || style === 'none' || style === 'hidden') continue;
      const c = norm(s['border' + side + 'Color']);
      if (c) add(borderArea, c, w * len);
    }

    // Text: the boxes of the element's own non-blank text nodes.
    let tArea = 0;
    for (const node of el.childNodes) {
      if (node.nodeType !== 3 || !/\S/.test(node.nodeValue)) continue;
      range.selectNodeContents(node);
      for (const tr of range.getClientRects()) tArea += clipped(tr);
    }
    if (tArea > 0) {
      const fill = s.webkitTextFillColor && s.webkitTextFillColor !== s.color ? s.webkitTextFillColor : s.color;
      const c = norm(fill);
      if (c) add(textArea, c, tArea);
      const family = s.fontFamily.replace(/\s+/g, ' ').trim();
      if (family) add(fontArea, family, tArea);
      const size = Math.round(px(s.fontSize));
      if (size > 0) add(sizes, size, tArea);
    }

    // Spacing: margins, paddings and gaps stated as lengths (each distinct
    // value once per element); centring and layout values left out.
    const seen = new Set();
    const skip = layoutProps(el, s);
    for (const prop of SPACING_PROPS) {
      if (skip.has(prop)) continue;
      const v = Math.round(px(s[prop]));
      if (v > 0 && v <= MAX_SPACING && !seen.has(v)) {
        seen.add(v);
        add(spacing, v, 1);
      }
    }

    // Radii: the corners (percentages against the shorter side).
    const corners = new Set();
    for (const prop of ['borderTopLeftRadius', 'borderTopRightRadius', 'borderBottomRightRadius', 'borderBottomLeftRadius']) {
      const v = (s[prop] || '').split(' ')[0];
      let n = v.endsWith('%') ? (parseFloat(v) / 100) * Math.min(r.width, r.height) : px(v);
      n = Math.round(Math.min(n, 9999));
      if (n > 0) corners.add(n);
    }
    for (const n of corners) add(radii, n, 1);

    for (const prop of ['boxShadow', 'textShadow']) {
      const v = s[prop];
      if (v && v !== 'none') add(shadows, v, 1);
    }
  }

  // Painted backgrounds, shared among a gradient's colours.
  const paint = new Map();
  for (const rec of [canvasRec, ...painters.values()]) {
    const share = Math.max(0, rec.area) / rec.colors.length;
    for (const c of rec.colors) add(paint, c, share);
  }
  const palette = new Map(paint);
  for (const [c, a] of textArea) add(palette, c, a);
  for (const [c, a] of borderArea) add(palette, c, a);

  const byArea = (map, cap, key) =>
    [...map.entries()]
      .filter(([, a]) => a >= 1)
      .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))
      .slice(0, cap)
      .map(([k, a]) => ({ [key]: k, area: Math.round(a) }));
  // The most used values, then in ascending order.
  const common = (map, cap) =>
    [...map.entries()]
      .sort((x, y) => y[1] - x[1] || x[0] - y[0])
      .slice(0, cap)
      .map(([k]) => k)
      .sort((x, y) => x - y);
  const top = (map, fallback) => {
    let best = null;
    for (const [k, a] of map) if (!best || a > best[1] || (a === best[1] && k < best[0])) best = [k, a];
    return best ? best[0] : fallback;
  };

  return {
    palette: byArea(palette, 12, 'color'),
    fonts: byArea(fontArea, 8, 'family'),
    type_scale: common(sizes, 16),
    spacing: common(spacing, 12),
    radii: common(radii, 8),
    shadows: [...shadows.entries()]
      .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))
      .slice(0, 8)
      .map(([k]) => k),
    background: cover || hex(canvas),
    foreground: top(textArea, '#000000'),
    status,
    stylesheets,
  };
})()
