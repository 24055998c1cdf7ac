// The installable app, page side: registers the service worker, shows when askbridge is offline,
// runs the "Notify me on this device" control, and shows reminders. Its words are all in TEXT,
// each read through t(), and drawn again when the person switches language.
import { cookie, h } from "./dom.js";
import { onLanguage, t } from "./i18n.js";

export const TEXT = {
  get offline() { return t("Offline: askbridge cannot be reached. This is the saved app; questions appear again once it is back."); },
  get notifyOff() { return t("Notify me on this device"); },
  get notifyOn() { return t("Notifications on · turn off"); },
  get notifyBusy() { return t("Just a moment…"); },
  get notifyDenied() { return t("Notifications are blocked for this site in the browser's settings"); },
  get notifyUnsupported() { return t("This browser cannot show notifications from askbridge"); },
  get notifyIos() { return t("To get notifications, add askbridge to your Home Screen first (Share → Add to Home Screen)"); },
  get notifyFailed() { return t("Notifications could not be turned on; try again"); },
  get dismiss() { return t("Dismiss"); },
};

const PROBE_MS = 5000;
const $ = (id) => document.getElementById(id);
let probing = null;

// offline -------------------------------------------------------------------------------------

function setOffline(offline) {
  document.documentElement.toggleAttribute("data-offline", offline);
  let banner = $("offline");
  if (offline && !banner) {
    banner = h("div", { id: "offline", class: "offline", role: "status" });
    document.body.prepend(banner);
  }
  if (banner) banner.textContent = TEXT.offline;
  if (banner) banner.hidden = !offline;
  if (offline && !probing) probing = setInterval(probe, PROBE_MS);
  if (!offline && probing) { clearInterval(probing); probing = null; }
}

async function probe() {
  const wasOffline = document.documentElement.hasAttribute("data-offline");
  const ok = await fetch("/healthz", { cache: "no-store" }).then((r) => r.ok, () => false);
  setOffline(!ok);
  if (ok && wasOffline) location.reload(); // back online: start over with fresh state
}

// service worker ------------------------------------------------------------------------------

async function registerWorker() {
  if (!("serviceWorker" in navigator)) return null;
  navigator.serviceWorker.addEventListener("message", (event) => {
    const data = event.data || {};
    if (data.type === "offline") setOffline(true);
    if (data.type === "open" && data.hash) location.hash = data.hash;
  });
  // Offline the update check fails; the worker installed before keeps working.
  await navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => null);
  if (!(await navigator.serviceWorker.getRegistration("/"))) return null;
  const ready = await navigator.serviceWorker.ready;
  const token = cookie("askbridge_csrf");
  if (token && ready.active) ready.active.postMessage({ type: "csrf", token });
  return ready;
}

// "Notify me on this device" ------------------------------------------------------------------

function keyBytes(base64url) {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

async function send(method, body) {
  return fetch("/ui/api/push/subscriptions", { method, credentials: "same-origin",
    headers: { "content-type": "application/json", "x-askbridge-csrf": cookie("askbridge_csrf") },
    body: JSON.stringify(body) });
}

class NotifyControl {
  constructor(registration) {
    this.registration = registration;
    this.button = h("button", { type: "button", id: "notify", class: "notify",
      onclick: () => this.toggle() });
    this.state = "off";
    this.words = "notifyOff";
  }

  // `words` names an entry of TEXT, so a language switch can draw it again.
  show(state, words) {
    this.state = state;
    this.words = words;
    this.button.dataset.state = state;
    this.button.textContent = TEXT[words];
    this.button.title = TEXT[words];
    this.button.disabled = ["busy", "denied", "unsupported"].includes(state);
  }

  relabel() {
    if (this.button.textContent) this.show(this.state, this.words);
  }

  async init() {
    const standalone = matchMedia("(display-mode: standalone)").matches || navigator.standalone;
    if (!this.registration || !("PushManager" in window) || !("Notification" in window)) {
      const ios = /iPhone|iPad|iPod/.test(navigator.userAgent) && !standalone;
      return this.show("unsupported", ios ? "notifyIos" : "notifyUnsupported");
    }
    if (Notification.permission === "denied") return this.show("denied", "notifyDenied");
    const existing = await this.registration.pushManager.getSubscription();
    if (existing) await send("POST", existing.toJSON()).catch(() => null); // heals a server that forgot it
    this.show(existing ? "on" : "off", existing ? "notifyOn" : "notifyOff");
  }

  async toggle() {
    const was = this.state;
    this.show("busy", "notifyBusy");
    try {
      if (was === "on") await this.unsubscribe(); else await this.subscribe();
    } catch {
      this.show(was, was === "on" ? "notifyOn" : "notifyFailed");
    }
  }

  async subscribe() {
    if (await Notification.requestPermission() !== "granted") {
      return this.show("denied", "notifyDenied");
    }
    const key = await fetch("/ui/api/push/key", { credentials: "same-origin" }).then((r) => r.json());
    const subscription = await this.registration.pushManager.subscribe({
      userVisibleOnly: true, applicationServerKey: keyBytes(key.publicKey) });
    const response = await send("POST", subscription.toJSON());
    if (response.status !== 201) throw new Error(`subscribe refused: ${response.status}`);
    this.show("on", "notifyOn");
  }

  async unsubscribe() {
    const subscription = await this.registration.pushManager.getSubscription();
    if (subscription) {
      await send("DELETE", { endpoint: subscription.endpoint });
      await subscription.unsubscribe();
    }
    this.show("off", "notifyOff");
  }
}

// reminders: a notice on the page, from the live stream ---------------------------------------

const REMINDER_MS = 60_000;

export function showReminder(text) {
  // Outside the timeline, which re-renders at every refresh; a click or a minute dismisses it.
  $("reminder")?.remove();
  const notice = h("button", { type: "button", id: "reminder", class: "reminder", role: "status",
    title: TEXT.dismiss, text, onclick: () => notice.remove() });
  document.body.append(notice);
  setTimeout(() => notice.remove(), REMINDER_MS);
  if (document.hidden) document.title = `(!) ${document.title.replace(/^\(!\) /, "")}`;
}

document.addEventListener("visibilitychange", () => {
  if (!document.hidden) document.title = document.title.replace(/^\(!\) /, "");
});

async function start() {
  addEventListener("online", probe);
  addEventListener("offline", () => setOffline(true));
  const registration = await registerWorker();
  const control = new NotifyControl(registration);
  const slot = $("notify-slot");
  if (slot) slot.replaceChildren(control.button);
  onLanguage(() => {
    control.relabel();
    if ($("offline")) $("offline").textContent = TEXT.offline;
    if ($("reminder")) $("reminder").title = TEXT.dismiss;
  });
  await control.init().catch(() => control.show("unsupported", "notifyUnsupported"));
  await probe();
}

start();
