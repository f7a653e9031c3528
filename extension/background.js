// The service worker: wires chrome.* events to the relay (relay.js) and the
// request table (tabs.js). Listeners are registered synchronously at the top
// level so that an event that wakes a stopped worker is delivered.

import { Relay, PROTOCOL, validPort, validToken, isObject } from "./relay.js";
import { Tabs } from "./tabs.js";

const ALARM = "webrig-revive";
const ALARM_PERIOD_MIN = 0.5; // 30 s, the shortest Chrome allows

const tabs = new Tabs((event) => relay.sendEvent(event));

const relay = new Relay({
  onOpen(send) {
    send({
      type: "hello",
      protocol: PROTOCOL,
      extension: chrome.runtime.getManifest().version,
      browser: navigator.userAgent,
      tabs: tabs.helloTabs(),
    });
    tabs.helloSent();
  },
  onClose() {
    // The daemon's view of the sessions is gone with the socket: detach (the
    // "being debugged" bar goes away) and name the tabs in the next hello.
    tabs.releaseAll({ remember: true });
  },
  onRequest: (method, params) => tabs.handle(method, params),
});

// ---- start-up --------------------------------------------------------------

async function loadConfig() {
  const cfg = await chrome.storage.local.get(["port", "token", "stopped"]);
  relay.configure({ port: cfg.port, token: cfg.token });
  return cfg;
}

async function init() {
  const alarm = await chrome.alarms.get(ALARM).catch(() => null);
  if (!alarm) {
    await chrome.alarms.create(ALARM, {
      delayInMinutes: ALARM_PERIOD_MIN,
      periodInMinutes: ALARM_PERIOD_MIN,
    });
  }
  await tabs.restore();
  const cfg = await loadConfig();
  if (relay.token && !cfg.stopped) relay.start();
}

const ready = init().catch((e) => console.error("webrig: start-up failed", e));

// ---- chrome events (top level) ---------------------------------------------

chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === ALARM) ready.then(() => relay.kick());
});

chrome.runtime.onStartup.addListener(() => {
  /* waking the worker is the point; init() runs at the top level */
});

chrome.debugger.onEvent.addListener((source, method, params) => {
  tabs.onEvent(source, method, params);
});

chrome.debugger.onDetach.addListener((source, reason) => {
  tabs.onDetach(source, reason);
});

chrome.tabs.onRemoved.addListener((tabId) => {
  tabs.onTabRemoved(tabId);
});

chrome.tabs.onUpdated.addListener((tabId, changeInfo) => {
  tabs.onTabUpdated(tabId, changeInfo);
});

// ---- the popup -------------------------------------------------------------

const ownPages = chrome.runtime.getURL("");

chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
  // Only this extension's own pages (there are no content scripts and no
  // externally_connectable, but check anyway).
  if (sender.id !== chrome.runtime.id || typeof sender.url !== "string" || !sender.url.startsWith(ownPages)) {
    return false;
  }
  if (!isObject(msg) || typeof msg.type !== "string") return false;
  ready
    .then(() => fromPopup(msg))
    .then(
      (answer) => sendResponse({ ok: true, ...answer }),
      (e) => sendResponse({ ok: false, error: String(e?.message ?? e) }),
    );
  return true;
});

async function fromPopup(msg) {
  switch (msg.type) {
    case "status":
      return status();
    case "connect": {
      // After a pairing (the popup stored token and port) or the Connect
      // button after Stop.
      await chrome.storage.local.set({ stopped: false });
      await loadConfig();
      if (!relay.token) throw new Error("not paired: enter the code webrig pair prints");
      relay.start();
      return status();
    }
    case "stop": {
      await chrome.storage.local.set({ stopped: true });
      relay.stop();
      await tabs.releaseAll({ remember: false });
      tabs.lent.clear();
      await tabs.persist();
      return status();
    }
    // The user lends one of their tabs to the agent (or takes it back): the
    // only way a tab the agent did not open becomes visible to the daemon.
    case "lend":
      await tabs.lend(msg.tabId);
      return status();
    case "unlend":
      await tabs.unlend(msg.tabId);
      return status();
    // "Annotate this page": the tab is lent (the daemon sees only lent
    // tabs), then the daemon opens its overlay there. What the person sends
    // goes to the agent's inbox (webrig inbox list).
    case "annotate": {
      if (relay.status().state !== "connected") throw new Error("not connected to webrig: pair first");
      await tabs.lend(msg.tabId);
      await tabs.persist();
      if (!relay.send({ type: "annotate", tabId: msg.tabId })) throw new Error("the connection to webrig dropped");
      return status();
    }
    case "forget": {
      await chrome.storage.local.remove(["token"]);
      await chrome.storage.local.set({ stopped: true });
      relay.stop("unpaired");
      await tabs.releaseAll({ remember: false });
      tabs.lent.clear();
      await tabs.persist();
      relay.configure({ port: relay.port, token: null });
      return status();
    }
    default:
      throw new Error(`unknown message ${JSON.stringify(msg.type)}`);
  }
}

async function status() {
  return { ...relay.status(), held: await tabs.heldTabs(), tabs: await tabs.lendable() };
}

// Exposed for the console of the service worker when debugging by hand.
globalThis.webrig = { relay, tabs, validPort, validToken };
