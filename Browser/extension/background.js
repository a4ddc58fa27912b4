// Baton Handoff: tells baton-browser-host (the native messaging host org.baton.browser_host)
// which web page is in front, so that batond offers it to the person's other devices as an
// NSUserActivityTypeBrowsingWeb activity. One file for Chromium (a service worker) and
// Firefox (an event page).
//
// The page in front is the active tab of the focused browser window. The extension does not
// keep its own idea of focus: after every event that may change it, it asks the browser for
// the last focused normal window and takes it only when the browser says it is focused
// (`focused`). On a desktop, losing the focus makes that false (and windows.onFocusChanged
// reports WINDOW_ID_NONE, also for a private window coming to the front, which this
// extension may not see); headless Chromium reports its window as focused and sends few
// focus events, so the same rule works there too.
//
// Messages, one JSON object each: {"page": {"url": URL, "title": TITLE}} for an http or https
// page, {"page": null, "active": true} when a browser window is focused but shows nothing to
// share, {"page": null} when no browser window of this profile is focused. Private windows
// never get past `incognito` (the manifest keeps the extension out of them as well).
"use strict";

const api = globalThis.browser ?? globalThis.chrome;

const HOST = "org.baton.browser_host";
/// After a focus, tab or address change: long enough to ride over the WINDOW_ID_NONE some
/// Linux window managers report between two windows of the browser.
const SETTLE_MS = 150;
/// After a change of title alone: a page that retitles itself often is sent twice a second.
const TITLE_MS = 500;
/// Reconnection: the first wait, doubled after each failure up to the longest; a connection
/// that lasted STABLE_MS starts over with the first.
const RETRY_FIRST_MS = 1000;
const RETRY_LONGEST_MS = 5 * 60 * 1000;
const STABLE_MS = 30 * 1000;

let port = null;
let connectedAt = 0;
let retryDelay = RETRY_FIRST_MS;
let retryTimer = null;
/// The text of the message sent last on this port, so an unchanged page is not sent again.
let lastSent = null;
let updateTimer = null;
let updateDue = Infinity;
let updating = false;
let updateAgain = false;

function connect() {
  retryTimer = null;
  let opened;
  try {
    opened = api.runtime.connectNative(HOST);
  } catch (error) {
    reconnectLater(String(error));
    return;
  }
  port = opened;
  connectedAt = Date.now();
  lastSent = null;
  opened.onDisconnect.addListener((closed) => {
    const reason = api.runtime.lastError?.message ?? closed?.error?.message ?? "the host exited";
    if (port === opened) port = null;
    if (Date.now() - connectedAt >= STABLE_MS) retryDelay = RETRY_FIRST_MS;
    reconnectLater(reason);
  });
  schedule(0);
}

function reconnectLater(reason) {
  if (retryTimer !== null) return;
  console.warn(`Baton: no connection to ${HOST} (${reason}); trying again in ${retryDelay / 1000} s`);
  retryTimer = setTimeout(connect, retryDelay);
  retryDelay = Math.min(retryDelay * 2, RETRY_LONGEST_MS);
}

/// Sends the page in front within `delay` ms; an update due sooner stays sooner.
function schedule(delay) {
  const due = Date.now() + delay;
  if (updateTimer !== null && updateDue <= due) return;
  clearTimeout(updateTimer);
  updateDue = due;
  updateTimer = setTimeout(() => {
    updateTimer = null;
    updateDue = Infinity;
    update();
  }, delay);
}

/// Sends the current message unless it is the one sent last; one update at a time, so
/// messages leave in the order of the states they describe.
async function update() {
  if (updating) {
    updateAgain = true;
    return;
  }
  updating = true;
  try {
    do {
      updateAgain = false;
      const message = await currentMessage();
      const text = JSON.stringify(message);
      if (port === null || text === lastSent) continue;
      try {
        port.postMessage(message);
        lastSent = text;
      } catch (error) {
        console.warn(`Baton: could not send to ${HOST}: ${error}`);
      }
    } while (updateAgain);
  } finally {
    updating = false;
  }
}

async function currentMessage() {
  let window;
  try {
    window = await api.windows.getLastFocused({ populate: true, windowTypes: ["normal"] });
  } catch {
    return { page: null }; // no window of this profile
  }
  if (!window || !window.focused || window.incognito) return { page: null };
  const page = pageOf((window.tabs ?? []).find((tab) => tab.active));
  return page ? { page } : { page: null, active: true };
}

/// The tab's page when it may be shared: an http or https page outside private windows.
function pageOf(tab) {
  if (!tab || tab.incognito || typeof tab.url !== "string") return null;
  let url;
  try {
    url = new URL(tab.url);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  return { url: tab.url, title: typeof tab.title === "string" ? tab.title : "" };
}

const soon = () => schedule(SETTLE_MS);
api.windows.onFocusChanged.addListener(soon);
api.windows.onCreated.addListener(soon);
api.windows.onRemoved.addListener(soon);
api.tabs.onActivated.addListener(soon);
api.tabs.onRemoved.addListener(soon);
api.tabs.onAttached.addListener(soon);
api.tabs.onDetached.addListener(soon);
api.tabs.onReplaced.addListener(soon);
api.tabs.onUpdated.addListener((tabId, change, tab) => {
  if (!tab.active) return;
  if (change.url !== undefined || change.status !== undefined) {
    schedule(SETTLE_MS);
  } else if (change.title !== undefined) {
    schedule(TITLE_MS);
  }
});

connect();
