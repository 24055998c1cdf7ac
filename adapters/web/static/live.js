// The live channel: Server-Sent Events at /ui/events. Every (re)connect and every change makes
// the page refetch its state; reminders show as a notice. The dot in the sidebar says how it is.
import { t } from "./i18n.js";
import { showReminder } from "./pwa.js";

const $ = (id) => document.getElementById(id);
const GAP_MS = 2500; // streams end every so often by design; only a gap that lasts is shown
const RETRY_MS = 2000;
let settled = null;

// `changed()` refetches the page's state; `stopped()` says the person was signed out.
export function connect(changed, stopped) {
  const conn = $("conn");
  const events = new EventSource("/ui/events");
  events.onopen = () => {
    clearTimeout(settled); settled = null;
    conn.dataset.state = "live";
    showConnection();
  };
  events.onmessage = (msg) => {
    const event = JSON.parse(msg.data);
    if (event.type === "reminder") showReminder(event.text);
    else if (["hello", "question", "resolved"].includes(event.type)) changed();
  };
  events.onerror = () => {
    settled = settled || setTimeout(() => {
      conn.dataset.state = "offline";
      showConnection();
    }, GAP_MS);
    if (events.readyState === EventSource.CLOSED) {
      events.close();
      setTimeout(() => { if (!stopped()) { changed(); connect(changed, stopped); } }, RETRY_MS);
    }
  };
}

export function showConnection() {
  const words = { live: t("Live"), offline: t("Reconnecting…"), connecting: t("Connecting…") };
  $("conn-text").textContent = words[$("conn").dataset.state] || words.connecting;
}
