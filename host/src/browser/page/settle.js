  // --- Settling: what an action set off, waited for before it returns. ---

  // Asks the main-world hooks (hooks.js) how long until the last short timer
  // the action set off fires: ms, or -1 for none (or no hooks: a page that
  // was loaded before webrig attached).
  addEventListener('__webrig_hooks_reply', (e) => { W.timersDue = Number(e.detail); }, true);
  function shortTimers() {
    W.timersDue = -1;
    document.dispatchEvent(new CustomEvent('__webrig_hooks_timers'));
    return Number.isFinite(W.timersDue) ? W.timersDue : -1;
  }
  const hooksWatch = (on) => document.dispatchEvent(new CustomEvent('__webrig_hooks_watch', { detail: on ? 'on' : 'off' }));

  // Properties whose transition shows, hides or moves something.
  const REVEALING = /^(?:all|opacity|visibility|display|content-visibility|transform|translate|scale|rotate|clip-path|(?:max-|min-)?(?:height|width)|top|left|right|bottom|inset.*|margin.*)$/;
  // A transition or finite animation the action started, on an element the
  // action changed or inside one (a submenu sliding open, a panel fading
  // in). A button's own :hover transition changes no element, so it is not
  // waited for.
  function started(a) {
    if (!live(a)) return false;
    const t = a.effect && a.effect.getComputedTiming ? a.effect.getComputedTiming() : null;
    if (!t || !Number.isFinite(t.endTime)) return false;
    if (a.startTime !== null && a.startTime < W.watchedAt) return false;
    const props = a.transitionProperty ? [a.transitionProperty]
      : (a.effect.getKeyframes ? a.effect.getKeyframes().flatMap((k) => Object.keys(k)).map((p) => p.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())) : []);
    if (!props.some((p) => REVEALING.test(p))) return false;
    for (let n = a.effect.target; n; n = parentOf(n)) if (W.touched.has(n)) return true;
    return false;
  }

  Object.assign(lib, {
    // Starts counting what an action sets off: DOM changes, and the frames
    // and timers the page asks for (by their ids), so settle() knows what to
    // wait for.
    watch() {
      if (W.mo) W.mo.disconnect();
      W.mutations = 0;
      W.restyles = 0;
      W.urlBefore = location.href;
      W.touched = new Set();
      W.watchedAt = document.timeline.currentTime || 0;
      hooksWatch(true);
      W.frameId = frameProbe();
      W.timerId = timerProbe();
      W.mo = new MutationObserver((list) => {
        W.mutations += list.length;
        for (const m of list) {
          if (m.attributeName === 'style') W.restyles++;
          if (W.touched.size < 1000) W.touched.add(m.target);
        }
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
    //  - timers of up to 300 ms the handlers set, or those timers set in
    //    turn (a hover menu that opens after a delay), counted by the
    //    main-world hooks; then the rendering they set off, as above;
    //  - CSS transitions and finite animations that show, hide or move an
    //    element the action changed (or one inside it), to their end.
    // Nothing changed and nothing asked for: it returns at once. Changed and
    // nothing asked for: the changes are complete, a snapshot reads them
    // directly (style and layout are computed when read), so no frame either.
    // Not awaited: longer timers, a timer re-arming itself (a poll, a
    // clock), a button's own :hover transition, network responses, tasks the page
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
      const render = async () => {
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
      };
      await render();
      // Short timers the action set off (a menu that opens 200 ms after the
      // hover), and what each of them sets off in turn.
      for (let due = shortTimers(); due >= 0 && left() > 0; due = shortTimers()) {
        await sleep(Math.min(due + 1, left()));
        await render();
      }
      // Then the transitions those changes started, to their end.
      if (changed() && left() > 0) {
        const mine = document.getAnimations().filter(started);
        if (mine.length) await Promise.race([Promise.all(mine.map((a) => a.finished.catch(() => null))), sleep(left())]);
      }
      hooksWatch(false);
      W.mo.disconnect();
      W.mo = null;
      return W.mutations;
    },
  });
