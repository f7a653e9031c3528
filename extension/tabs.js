// The request table of PROTOCOL.md on top of chrome.tabs, chrome.tabGroups,
// chrome.windows and chrome.debugger (flat sessions), plus the events that go
// back to the daemon. Every request is validated; every failure is a
// RelayError with a code of not_found | denied | failed. It never closes,
// focuses or rearranges a window of the user's.
//
// The daemon sees and touches only the agent's tabs: those it opened, those
// in a session's tab group, and those the user lent in the popup. Any other
// tab id is refused here, whatever the daemon asks (it does not have to be
// trusted to restrict itself), and no event names it.

import { RelayError, isObject } from "./relay.js";

const DEBUGGER_VERSION = "1.3";
const DEFAULT_GROUP = "webrig";
const MAX_URL_CHARS = 8192;
const MAX_GROUP_CHARS = 64;
const MAX_SESSION_CHARS = 128;
/** Events of a tab held back while its attach is being answered. */
const MAX_BUFFERED_EVENTS = 2000;
/** A CDP command Chrome has not answered in this long frees its slot. */
const CDP_TIMEOUT_MS = 180_000;
const CDP_METHOD = /^[A-Za-z][A-Za-z0-9]{0,49}\.[A-Za-z][A-Za-z0-9]{0,79}$/;
const TAB_SESSION = /^tab-(\d{1,10})$/;
const ALLOWED_SCHEMES = new Set(["http:", "https:"]);

const SESSION_KEY = "webrig.session";

function tabIdParam(params) {
  const tabId = params.tabId;
  if (!Number.isSafeInteger(tabId) || tabId < 0) {
    throw new RelayError("failed", "tabId must be a non-negative integer");
  }
  return tabId;
}

function sessionIdParam(params) {
  const s = params.sessionId;
  if (typeof s !== "string" || s.length === 0 || s.length > MAX_SESSION_CHARS) {
    throw new RelayError("failed", `sessionId must be a string of 1-${MAX_SESSION_CHARS} characters`);
  }
  return s;
}

function urlParam(params) {
  const url = params.url;
  if (typeof url !== "string" || url.length === 0 || url.length > MAX_URL_CHARS) {
    throw new RelayError("failed", `url must be a string of 1-${MAX_URL_CHARS} characters`);
  }
  if (url === "about:blank") return url;
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    throw new RelayError("failed", "url is not a valid URL");
  }
  if (!ALLOWED_SCHEMES.has(parsed.protocol)) {
    throw new RelayError("denied", "only http:, https: and about:blank may be opened");
  }
  return parsed.href;
}

function groupParam(params) {
  const g = params.group;
  if (g === undefined || g === null) return DEFAULT_GROUP;
  if (typeof g !== "string" || g.trim().length === 0 || g.length > MAX_GROUP_CHARS) {
    throw new RelayError("failed", `group must be a non-empty string of at most ${MAX_GROUP_CHARS} characters`);
  }
  return g;
}

/** Turns what chrome.* threw into a RelayError. */
export function fromChrome(e, notFoundWhat) {
  const raw = String(e?.message ?? e ?? "unknown error");
  // Protocol errors come as the JSON of the CDP error object.
  if (raw.startsWith("{")) {
    try {
      const cdp = JSON.parse(raw);
      if (isObject(cdp) && typeof cdp.message === "string") {
        const code = /session with given id not found|no target with given id/i.test(cdp.message)
          ? "not_found"
          : "failed";
        const extra = Number.isInteger(cdp.code) ? { cdpCode: cdp.code } : undefined;
        return new RelayError(code, cdp.message.slice(0, 2000), extra);
      }
    } catch {
      /* not JSON after all */
    }
  }
  if (/no tab with id|no target with given id|not found|no (window|group) with id/i.test(raw)) {
    return new RelayError("not_found", notFoundWhat ? `${notFoundWhat}: ${raw}` : raw);
  }
  if (/cannot access|cannot attach|not allowed|permission|another debugger|already attached|chrome:\/\//i.test(raw)) {
    return new RelayError("denied", raw);
  }
  return new RelayError("failed", raw.slice(0, 2000));
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new RelayError("failed", `${what}: no answer from Chrome in ${ms / 1000} s`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

export class Tabs {
  /** @param {(event: object) => void} emit  sends an event to the daemon */
  constructor(emit) {
    this.emit = emit;
    /** tabId → {sessionId, attaching, buffer} */
    this.held = new Map();
    /** child CDP sessionId → {tabId, parent} (parent: null for the tab) */
    this.children = new Map();
    /** tabs the agent created (the others it attaches to are borrowed) */
    this.created = new Set();
    /** tabs the user lent in the popup: the only ones of the user's it may borrow */
    this.lent = new Set();
    /** group name → tabGroup id */
    this.groups = {};
    /** group name → id of the window opened for that session's tabs */
    this.windows = {};
    /** group name → the tabs.create of that group still running (one at a time) */
    this.opening = new Map();
    /** tabs held when the last connection ended, for the next hello */
    this.heldBefore = [];
    this.onChange = () => {};
  }

  // ---- metadata in chrome.storage.session --------------------------------

  async persist() {
    const data = {
      held: [...this.held.keys()],
      created: [...this.created],
      lent: [...this.lent],
      groups: this.groups,
      windows: this.windows,
      heldBefore: this.heldBefore,
    };
    try {
      await chrome.storage.session.set({ [SESSION_KEY]: data });
    } catch (e) {
      console.warn("webrig: cannot write session metadata", e);
    }
    this.onChange();
  }

  /**
   * Worker start: read what a previous worker held and detach it (its
   * events went nowhere while no worker ran); those tabs go into the next
   * hello so the daemon can re-attach what it still wants.
   */
  async restore() {
    let data = {};
    try {
      data = (await chrome.storage.session.get(SESSION_KEY))[SESSION_KEY] ?? {};
    } catch (e) {
      console.warn("webrig: cannot read session metadata", e);
    }
    const ints = (a) => (Array.isArray(a) ? a.filter((n) => Number.isSafeInteger(n)) : []);
    const leftover = ints(data.held);
    this.created = new Set(ints(data.created));
    this.lent = new Set(ints(data.lent));
    this.groups = isObject(data.groups) ? { ...data.groups } : {};
    // Window ids are not reused within a browser session (nor does
    // storage.session outlive one), so a gone window is only pruned, never
    // mistaken for another.
    const windowIds = new Set((await chrome.windows.getAll().catch(() => [])).map((w) => w.id));
    this.windows = {};
    if (isObject(data.windows)) {
      for (const [name, id] of Object.entries(data.windows)) {
        if (Number.isSafeInteger(id) && windowIds.has(id)) this.windows[name] = id;
      }
    }
    const before = new Set([...ints(data.heldBefore), ...leftover]);
    let targets = [];
    try {
      targets = await chrome.debugger.getTargets();
    } catch {
      /* nothing to detach then */
    }
    const attached = new Set(targets.filter((t) => t.attached && t.tabId !== undefined).map((t) => t.tabId));
    await Promise.all(
      leftover
        .filter((tabId) => attached.has(tabId))
        .map((tabId) => chrome.debugger.detach({ tabId }).catch(() => {})),
    );
    // Tabs that no longer exist are not worth a re-attach.
    const open = new Set((await chrome.tabs.query({}).catch(() => [])).map((t) => t.id));
    this.heldBefore = [...before].filter((id) => open.has(id));
    for (const id of this.created) if (!open.has(id)) this.created.delete(id);
    for (const id of this.lent) if (!open.has(id)) this.lent.delete(id);
    await this.persist();
    return leftover;
  }

  // ---- requests ----------------------------------------------------------

  /** @returns {Promise<{result: object, after?: () => void}>} */
  async handle(method, params) {
    switch (method) {
      case "tabs.create":
        return { result: await this.create(params) };
      case "tabs.list":
        return { result: await this.list() };
      case "tabs.close":
        return { result: await this.close(params) };
      case "tabs.activate":
        return { result: await this.activate(params) };
      case "attach":
        return this.attach(params);
      case "detach":
        return { result: await this.detach(params) };
      case "cdp":
        return { result: await this.cdp(params) };
      case "release":
        await this.releaseAll({ remember: false });
        return { result: {} };
      default:
        throw new RelayError("not_found", `unknown method ${JSON.stringify(method)}`);
    }
  }

  async create(params) {
    const url = urlParam(params);
    const group = groupParam(params);
    // One create per group at a time, so two racing creates of a new session
    // share one window instead of opening two.
    const before = this.opening.get(group) ?? Promise.resolve();
    const mine = before.catch(() => {}).then(() => this.openTab(url, group));
    this.opening.set(group, mine);
    let tab;
    try {
      tab = await mine;
    } finally {
      if (this.opening.get(group) === mine) this.opening.delete(group);
    }
    this.created.add(tab.id);
    let groupId = -1;
    let groupError;
    try {
      groupId = await this.putInGroup(tab, group);
    } catch (e) {
      groupError = String(e?.message ?? e);
      console.warn("webrig: cannot group the tab", e);
    }
    const targetId = await this.targetIdOf(tab.id);
    await this.persist();
    const result = { tabId: tab.id, targetId, groupId, windowId: tab.windowId };
    if (groupError) result.groupError = groupError.slice(0, 500);
    return result;
  }

  /**
   * A tab for the session `group`: the active tab of the session's own
   * window, which is opened unfocused when the session has none (or the
   * user closed it). A background tab in the user's window would be hidden:
   * Chrome runs it at background priority and never gives it the animation
   * frames a page waits for. The user's window, tabs and focus stay as they
   * are. Only if Chrome cannot open a window does the tab go, in the
   * background, into the user's window (the behaviour before windows).
   */
  async openTab(url, group) {
    const windowId = this.windows[group];
    if (Number.isSafeInteger(windowId)) {
      const w = await chrome.windows.get(windowId).catch(() => null);
      if (w) {
        // Opened in the background, then made the active tab of its window:
        // created active, Chrome also focuses the window (seen in headless
        // Chromium 156), which would take the user's keyboard.
        const tab = await chrome.tabs.create({ windowId, url, active: false }).catch((e) => {
          // Closed meanwhile: a new window below.
          console.warn("webrig: cannot open a tab in the session's window", e);
          return null;
        });
        if (tab) return chrome.tabs.update(tab.id, { active: true }).catch(() => tab);
      }
      delete this.windows[group];
    }
    try {
      const w = await chrome.windows.create({ url, type: "normal", focused: false });
      const tab = w.tabs?.[0] ?? (await chrome.tabs.query({ windowId: w.id }))[0];
      if (tab) {
        this.windows[group] = w.id;
        return tab;
      }
      console.warn("webrig: the new window has no tab", w);
    } catch (e) {
      console.warn("webrig: cannot open a window; the tab goes into the current one", e);
    }
    try {
      return await chrome.tabs.create({ url, active: false });
    } catch (e) {
      throw fromChrome(e);
    }
  }

  /** Whether `groupId` is a tab group this extension made for a session. */
  isSessionGroup(groupId) {
    return Number.isSafeInteger(groupId) && groupId >= 0 && Object.values(this.groups).includes(groupId);
  }

  /** Whether the daemon may see and touch `tab`: the agent's own or lent. */
  mayTouch(tab) {
    return !!tab && (this.created.has(tab.id) || this.lent.has(tab.id) || this.isSessionGroup(tab.groupId));
  }

  /**
   * The tab `tabId` if the daemon may touch it; otherwise "not_found", the
   * same answer as for a tab that does not exist, so the daemon cannot
   * even learn which ids are open.
   */
  async allowedTab(tabId) {
    const tab = await chrome.tabs.get(tabId).catch(() => null);
    if (!this.mayTouch(tab)) {
      throw new RelayError("not_found", `no tab ${tabId} of the agent's (lend it in the webrig popup)`);
    }
    return tab;
  }

  /** The popup's Lend button: the user lends `tabId` to the agent. */
  async lend(tabId) {
    if (!Number.isSafeInteger(tabId) || tabId < 0) throw new Error("tabId must be a tab id");
    await chrome.tabs.get(tabId);
    this.lent.add(tabId);
    await this.persist();
  }

  /** The popup's Take back: detached if held, no longer visible to the daemon. */
  async unlend(tabId) {
    this.lent.delete(tabId);
    if (this.held.has(tabId) && !this.created.has(tabId)) {
      this.forget(tabId);
      await chrome.debugger.detach({ tabId }).catch(() => {});
      this.emit({ type: "detached", sessionId: `tab-${tabId}`, reason: "taken_back_by_user" });
    }
    await this.persist();
  }

  /** For the popup: the user's tabs, whether lent, to lend or take back. */
  async lendable() {
    const tabs = await chrome.tabs.query({});
    const own = chrome.runtime.getURL("");
    return tabs
      .filter((t) => !this.created.has(t.id) && !(t.url ?? "").startsWith(own))
      .map((t) => ({ tabId: t.id, url: t.url ?? t.pendingUrl ?? "", title: t.title ?? "", lent: this.lent.has(t.id) }));
  }

  /** Whether `windowId` is a window this extension opened for a session. */
  isSessionWindow(windowId) {
    return Object.values(this.windows).includes(windowId);
  }

  async putInGroup(tab, name) {
    let groupId = this.groups[name];
    if (Number.isSafeInteger(groupId)) {
      const g = await chrome.tabGroups.get(groupId).catch(() => null);
      if (g && g.windowId === tab.windowId) {
        await chrome.tabs.group({ groupId, tabIds: [tab.id] });
        return groupId;
      }
    }
    groupId = await chrome.tabs.group({ tabIds: [tab.id], createProperties: { windowId: tab.windowId } });
    await chrome.tabGroups.update(groupId, { title: name, color: "grey" });
    this.groups[name] = groupId;
    return groupId;
  }

  /** The CDP targetId of a tab (chrome.debugger.getTargets), or null. */
  async targetIdOf(tabId) {
    for (let i = 0; i < 20; i++) {
      const targets = await chrome.debugger.getTargets().catch(() => []);
      const t = targets.find((x) => x.tabId === tabId);
      if (t) return t.id;
      await new Promise((r) => setTimeout(r, 50));
    }
    return null;
  }

  async list() {
    const [tabs, targets] = await Promise.all([
      chrome.tabs.query({}),
      chrome.debugger.getTargets().catch(() => []),
    ]);
    const ids = new Map();
    for (const t of targets) if (t.tabId !== undefined) ids.set(t.tabId, t.id);
    return {
      tabs: tabs.filter((t) => this.mayTouch(t)).map((t) => ({
        tabId: t.id,
        targetId: ids.get(t.id) ?? null,
        url: t.url ?? t.pendingUrl ?? "",
        title: t.title ?? "",
        active: !!t.active,
        groupId: t.groupId ?? -1,
        held: this.held.has(t.id),
      })),
    };
  }

  async close(params) {
    const tabId = tabIdParam(params);
    const tab = await this.allowedTab(tabId);
    // A lent tab goes back to the user open: never closed by the daemon.
    if (this.lent.has(tabId) && !this.created.has(tabId) && !this.isSessionGroup(tab.groupId)) {
      throw new RelayError("denied", `tab ${tabId} is the user's: it is given back, not closed`);
    }
    try {
      await chrome.tabs.remove(tabId);
    } catch (e) {
      throw fromChrome(e, `tab ${tabId}`);
    }
    return {};
  }

  async activate(params) {
    const tabId = tabIdParam(params);
    await this.allowedTab(tabId);
    let tab;
    try {
      tab = await chrome.tabs.update(tabId, { active: true });
    } catch (e) {
      throw fromChrome(e, `tab ${tabId}`);
    }
    // A session's own window is visible already: it is left where it is, so
    // the user keeps the keyboard focus (the daemon activates before every
    // screenshot). A tab in the user's window (borrowed, or opened there when
    // no window could be) is brought to the front, best effort, so it paints
    // (headless has no focus to give).
    if (!this.isSessionWindow(tab.windowId)) {
      await chrome.windows.update(tab.windowId, { focused: true }).catch(() => {});
    }
    return {};
  }

  async attach(params) {
    const tabId = tabIdParam(params);
    const sessionId = `tab-${tabId}`;
    const known = this.held.get(tabId);
    if (known) {
      if (known.attaching) throw new RelayError("failed", `tab ${tabId} is being attached`);
      return { result: { sessionId } };
    }
    const tab = await this.allowedTab(tabId);
    // The first debugger in a window makes Chrome show its "started
    // debugging" bar there, which shrinks the page a moment later: wait for
    // that before answering, so the daemon's first command sees the page at
    // its lasting size.
    const firstInWindow = ![...this.held.values()].some((e) => e.windowId === tab.windowId);
    // Events until the answer is out are held back, so the daemon learns
    // the sessionId before its first event (and the children it has).
    const entry = { sessionId, attaching: true, buffer: [], windowId: tab.windowId };
    this.held.set(tabId, entry);
    try {
      await chrome.debugger.attach({ tabId }, DEBUGGER_VERSION);
    } catch (e) {
      this.held.delete(tabId);
      throw fromChrome(e, `tab ${tabId}`);
    }
    try {
      await chrome.debugger.sendCommand({ tabId }, "Target.setAutoAttach", {
        autoAttach: true,
        waitForDebuggerOnStart: false,
        flatten: true,
      });
    } catch (e) {
      this.forget(tabId);
      await chrome.debugger.detach({ tabId }).catch(() => {});
      throw fromChrome(e);
    }
    if (firstInWindow) await settleSize(tabId, tab.height);
    if (this.held.get(tabId) !== entry) {
      // Detached (tab closed, user cancelled) while attaching.
      throw new RelayError("failed", `tab ${tabId} was detached while attaching`);
    }
    await this.persist();
    return {
      result: { sessionId },
      after: () => {
        entry.attaching = false;
        const buffered = entry.buffer;
        entry.buffer = [];
        for (const ev of buffered) this.emit(ev);
      },
    };
  }

  /** Drops a tab and its child sessions from the tables (no Chrome call). */
  forget(tabId) {
    this.held.delete(tabId);
    for (const [sid, c] of this.children) if (c.tabId === tabId) this.children.delete(sid);
  }

  async detach(params) {
    const sessionId = sessionIdParam(params);
    const m = TAB_SESSION.exec(sessionId);
    if (m) {
      const tabId = Number(m[1]);
      if (!this.held.has(tabId)) throw new RelayError("not_found", `no session ${sessionId}`);
      this.forget(tabId);
      // A borrowed tab stays where the user had it: no close, no move.
      await chrome.debugger.detach({ tabId }).catch(() => {});
      await this.persist();
      return {};
    }
    const child = this.children.get(sessionId);
    if (!child || !this.held.has(child.tabId)) throw new RelayError("not_found", `no session ${sessionId}`);
    const parent = child.parent ? { tabId: child.tabId, sessionId: child.parent } : { tabId: child.tabId };
    try {
      await chrome.debugger.sendCommand(parent, "Target.detachFromTarget", { sessionId });
    } catch (e) {
      throw fromChrome(e);
    } finally {
      this.children.delete(sessionId);
    }
    return {};
  }

  debuggeeOf(sessionId) {
    const m = TAB_SESSION.exec(sessionId);
    if (m) {
      const tabId = Number(m[1]);
      const entry = this.held.get(tabId);
      if (!entry || entry.attaching) throw new RelayError("not_found", `no session ${sessionId}`);
      return { tabId };
    }
    const child = this.children.get(sessionId);
    if (!child || !this.held.has(child.tabId)) throw new RelayError("not_found", `no session ${sessionId}`);
    return { tabId: child.tabId, sessionId };
  }

  async cdp(params) {
    const sessionId = sessionIdParam(params);
    const method = params.method;
    if (typeof method !== "string" || !CDP_METHOD.test(method)) {
      throw new RelayError("failed", "method must look like Domain.method");
    }
    const cdpParams = params.params ?? {};
    if (!isObject(cdpParams)) throw new RelayError("failed", "params must be an object");
    const debuggee = this.debuggeeOf(sessionId);
    let result;
    try {
      result = await withTimeout(
        chrome.debugger.sendCommand(debuggee, method, cdpParams),
        CDP_TIMEOUT_MS,
        method,
      );
    } catch (e) {
      throw e instanceof RelayError ? e : fromChrome(e);
    }
    return isObject(result) ? result : {};
  }

  /**
   * Detaches everything held. `remember`: keep the tab ids for the next
   * hello (the connection dropped); otherwise they are forgotten (release,
   * the popup's Stop).
   */
  async releaseAll({ remember }) {
    const tabIds = [...this.held.keys()];
    this.held.clear();
    this.children.clear();
    this.heldBefore = remember ? [...new Set([...this.heldBefore, ...tabIds])] : [];
    await Promise.all(tabIds.map((tabId) => chrome.debugger.detach({ tabId }).catch(() => {})));
    await this.persist();
    return tabIds;
  }

  /** For hello: what we held before, and anything held right now. */
  helloTabs() {
    return [...new Set([...this.heldBefore, ...this.held.keys()])];
  }

  async helloSent() {
    this.heldBefore = [];
    await this.persist();
  }

  // ---- events from Chrome ------------------------------------------------

  onEvent(source, method, params) {
    const tabId = source?.tabId;
    const entry = this.held.get(tabId);
    if (!entry || typeof method !== "string") return;
    const sessionId = typeof source.sessionId === "string" ? source.sessionId : `tab-${tabId}`;
    if (method === "Target.attachedToTarget" && typeof params?.sessionId === "string") {
      this.children.set(params.sessionId, {
        tabId,
        parent: typeof source.sessionId === "string" ? source.sessionId : null,
      });
    }
    const ev = { type: "event", sessionId, method, params: params ?? {} };
    if (method === "Target.detachedFromTarget" && typeof params?.sessionId === "string") {
      this.children.delete(params.sessionId);
    }
    if (entry.attaching) {
      if (entry.buffer.length < MAX_BUFFERED_EVENTS) entry.buffer.push(ev);
      return;
    }
    this.emit(ev);
  }

  onDetach(source, reason) {
    const tabId = source?.tabId;
    if (!this.held.has(tabId)) return;
    if (typeof source.sessionId === "string") {
      this.children.delete(source.sessionId);
      this.emit({ type: "detached", sessionId: source.sessionId, reason: String(reason) });
      return;
    }
    this.forget(tabId);
    this.emit({ type: "detached", sessionId: `tab-${tabId}`, reason: String(reason) });
    this.persist();
  }

  onTabRemoved(tabId) {
    // Only the agent's tabs: the user's others are none of the daemon's business.
    const known = this.held.has(tabId) || this.created.has(tabId) || this.lent.has(tabId);
    this.created.delete(tabId);
    this.lent.delete(tabId);
    if (!known) return;
    this.emit({ type: "tab-removed", tabId });
    this.persist();
  }

  onTabUpdated(tabId, changeInfo) {
    // URLs only of the tabs the agent holds or made, not of all the user's.
    if (typeof changeInfo?.url !== "string") return;
    if (!this.held.has(tabId) && !this.created.has(tabId)) return;
    this.emit({ type: "tab-updated", tabId, url: changeInfo.url });
  }

  /** For the popup. */
  async heldTabs() {
    const out = [];
    for (const [tabId, entry] of this.held) {
      const tab = await chrome.tabs.get(tabId).catch(() => null);
      out.push({
        tabId,
        sessionId: entry.sessionId,
        title: tab?.title ?? "",
        url: tab?.url ?? "",
        created: this.created.has(tabId),
        children: [...this.children.values()].filter((c) => c.tabId === tabId).length,
      });
    }
    return out;
  }
}

/** How long a tab's page may take to change size after a debugger attaches. */
const SETTLE_WITHIN_MS = 600;
/** How long a new size must hold to count as the lasting one. */
const SETTLE_HOLD_MS = 250;

/**
 * Waits until tab `tabId`'s height has changed from `before` and held for a
 * moment, or SETTLE_WITHIN_MS passed without a change (no bar came: Chrome
 * started with --silent-debugger-extension-api, or it was there already).
 */
async function settleSize(tabId, before) {
  const start = Date.now();
  let last = before;
  let since = start;
  let changed = false;
  while (Date.now() - start < SETTLE_WITHIN_MS + SETTLE_HOLD_MS) {
    await new Promise((r) => setTimeout(r, 25));
    const tab = await chrome.tabs.get(tabId).catch(() => null);
    if (!tab) return;
    if (tab.height !== last) {
      last = tab.height;
      since = Date.now();
      changed = true;
    } else if (changed && Date.now() - since >= SETTLE_HOLD_MS) {
      return;
    } else if (!changed && Date.now() - start >= SETTLE_WITHIN_MS) {
      return;
    }
  }
}
