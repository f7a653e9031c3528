  // --- Shared calls, then the library goes live (the guard at the top
  // of core.js checks for `lib`). ---
  Object.assign(lib, {
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
  });
  W.lib = lib;
})();
