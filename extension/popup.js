// The popup: pair (POST /pair with the code `webrig pair` prints → token
// and port in chrome.storage.local), show the connection and the tabs the
// agent holds, lend one of your tabs to the agent (or take it back), Stop
// (release everything, no reconnecting until the next pairing/connect).

import { validPort, validToken, isObject } from "./relay.js";

const $ = (id) => document.getElementById(id);
const PAIR_TIMEOUT_MS = 5000;
const MAX_ANSWER_CHARS = 64 * 1024;

function say(text, ok = false) {
  $("message").textContent = text;
  $("message").className = ok ? "ok" : "";
}

/** A code as typed: 12 letters of Crockford's base32, dashes and spaces optional. */
export function normalizeCode(raw) {
  return String(raw).toUpperCase().replace(/[\s-]/g, "");
}
const CODE = /^[0-9A-HJKMNP-TV-Z]{12}$/;

async function ask(type, extra = {}) {
  try {
    const answer = await chrome.runtime.sendMessage({ type, ...extra });
    if (!answer?.ok) throw new Error(answer?.error ?? "no answer from the extension");
    return answer;
  } catch (e) {
    say(String(e?.message ?? e));
    return null;
  }
}

function render(s) {
  if (!s) return;
  const labels = {
    connected: "connected",
    connecting: "connecting…",
    waiting: "not connected, retrying",
    stopped: "stopped",
    unpaired: "not paired",
  };
  $("state").textContent = labels[s.state] ?? s.state;
  $("state").dataset.state = s.state;
  let detail = `port ${s.port}`;
  if (s.state === "waiting" && s.retryInMs) detail += `, next try in ${Math.ceil(s.retryInMs / 1000)} s`;
  $("detail").textContent = `(${detail})`;
  $("problem").textContent =
    s.state === "waiting" || s.state === "connecting" ? s.lastError || "" : "";
  const list = $("held");
  list.replaceChildren();
  if (!s.held?.length) {
    const li = document.createElement("li");
    li.className = "muted";
    li.textContent = "none";
    list.append(li);
  }
  for (const t of s.held ?? []) {
    const li = document.createElement("li");
    li.textContent = `${t.title || t.url || "tab"} (tab ${t.tabId}${t.created ? ", opened by the agent" : ""})`;
    li.title = t.url;
    list.append(li);
  }
  renderLendable(s.tabs ?? []);
  $("stop").disabled = s.state === "stopped" || s.state === "unpaired";
  $("connect").hidden = !(s.state === "stopped" && s.paired);
}

function renderLendable(tabs) {
  const list = $("lendable");
  list.replaceChildren();
  for (const t of tabs) {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.textContent = t.lent ? "take back" : "lend";
    button.dataset.tabId = String(t.tabId);
    button.dataset.url = t.url;
    button.className = t.lent ? "unlend" : "lend";
    button.addEventListener("click", async () => {
      render(await ask(t.lent ? "unlend" : "lend", { tabId: t.tabId }));
    });
    const annotate = document.createElement("button");
    annotate.textContent = "annotate";
    annotate.className = "annotate";
    annotate.dataset.url = t.url;
    annotate.addEventListener("click", () => startAnnotation(t.tabId));
    li.append(button, annotate, ` ${t.title || t.url || "tab"}`);
    li.title = t.url;
    list.append(li);
  }
}

/** Starts the daemon's annotation overlay on a tab (lent first). */
async function startAnnotation(tabId) {
  const answer = await ask("annotate", { tabId });
  if (!answer) return;
  render(answer);
  say("point at elements in the page, add notes, then Send", true);
}

async function annotateThisPage() {
  const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  if (!tab || !Number.isSafeInteger(tab.id)) return say("no page to annotate");
  await startAnnotation(tab.id);
  // Out of the person's way (a popup closes itself; a tab stays open).
  if (chrome.extension?.getViews?.({ type: "popup" })?.includes(window)) window.close();
}

async function refresh() {
  render(await ask("status"));
}

async function pair() {
  const port = Number($("port").value);
  // Crockford's base32 reads O as 0 and I, L as 1, as the daemon does.
  const code = normalizeCode($("code").value).replace(/O/g, "0").replace(/[IL]/g, "1");
  if (!validPort(port)) return say("the port is a number from 1 to 65535");
  if (!CODE.test(code)) return say("the code is 12 letters and digits, XXXX-XXXX-XXXX (webrig pair prints it)");
  $("pair").disabled = true;
  say("pairing…", true);
  try {
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(), PAIR_TIMEOUT_MS);
    let resp;
    try {
      resp = await fetch(`http://127.0.0.1:${port}/pair`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ code }),
        credentials: "omit",
        cache: "no-store",
        redirect: "error",
        signal: ctrl.signal,
      });
    } catch (e) {
      throw new Error(`cannot reach webrig on 127.0.0.1:${port} (is the daemon running?): ${e?.message ?? e}`);
    } finally {
      clearTimeout(timer);
    }
    const text = await resp.text();
    if (text.length > MAX_ANSWER_CHARS) throw new Error("the answer is too large");
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`the answer is not JSON (HTTP ${resp.status})`);
    }
    if (!isObject(body)) throw new Error(`unexpected answer (HTTP ${resp.status})`);
    if (!resp.ok || body.ok === false) {
      const message = isObject(body.error) && typeof body.error.message === "string"
        ? body.error.message
        : `HTTP ${resp.status}`;
      throw new Error(`pairing refused: ${message.slice(0, 300)}`);
    }
    if (!validToken(body.token)) throw new Error("the answer has no usable token");
    await chrome.storage.local.set({ token: body.token, port, stopped: false });
    $("code").value = "";
    say("paired", true);
    render(await ask("connect"));
  } catch (e) {
    say(String(e?.message ?? e));
  } finally {
    $("pair").disabled = false;
  }
}

$("pair").addEventListener("click", pair);
$("annotate").addEventListener("click", annotateThisPage);
$("code").addEventListener("keydown", (e) => {
  if (e.key === "Enter") pair();
});
$("stop").addEventListener("click", async () => {
  say("");
  render(await ask("stop"));
});
$("connect").addEventListener("click", async () => {
  say("");
  render(await ask("connect"));
});

chrome.storage.local.get(["port"]).then(({ port }) => {
  if (validPort(port)) $("port").value = String(port);
});
refresh();
setInterval(refresh, 1000);
