  // --- Settling: what an action set off, waited for before it returns. ---

  Object.assign(lib, {
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
  });
