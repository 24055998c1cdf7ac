// The sessions list (a strip on phones) and the bar that keeps other sessions' waiting questions
// one tap away: the page never leaves the session a person opened to show another one.
import { ago, h } from "./dom.js";
import { t } from "./i18n.js";

export const keyOf = (agent, session) => `${agent}\u0000${session}`;

let shown = ""; // the open session and its place in the list, as last drawn

// `pick(key)` opens a session; the open one is scrolled into view whenever it moves.
export function renderSessions(box, sessions, current, pick) {
  const items = sessions.map((s) => {
    const key = keyOf(s.agent, s.session);
    return h("button", { type: "button", class: `session${key === current ? " active" : ""}`,
      "aria-current": key === current ? "true" : null, onclick: () => pick(key) },
      h("span", { class: "session-name", text: s.session }),
      h("span", { class: "session-meta", text: t("agent {agent} · {ago}", { agent: s.agent, ago: ago(s.lastAt) }) }),
      s.pending ? h("span", { class: "badge", "aria-label": t("{count} pending", { count: s.pending }),
        text: String(s.pending) }) : null);
  });
  box.replaceChildren(...(items.length ? items
    : [h("div", { class: "empty-side", text: t("No sessions yet") })]));
  const place = `${current}|${sessions.findIndex((s) => keyOf(s.agent, s.session) === current)}`;
  if (place !== shown) keepInView(box, box.querySelector(".session.active"));
  shown = place;
}

// Scroll the list itself (never the page) just enough to show the chip, on either axis: a row
// of chips on phones, a column in the sidebar.
function keepInView(box, chip) {
  if (!chip) return;
  const outer = box.getBoundingClientRect(), inner = chip.getBoundingClientRect();
  const margin = 8;
  if (inner.left < outer.left) box.scrollLeft -= outer.left - inner.left + margin;
  else if (inner.right > outer.right) box.scrollLeft += inner.right - outer.right + margin;
  if (inner.top < outer.top) box.scrollTop -= outer.top - inner.top + margin;
  else if (inner.bottom > outer.bottom) box.scrollTop += inner.bottom - outer.bottom + margin;
}

// Shown in the dock when the open session has nothing waiting but others do.
export function waitingBar(waiting, open) {
  const next = waiting[0];
  const q = next.request.questions[0];
  return h("button", { type: "button", class: "qbar waitbar", onclick: open },
    h("span", { class: "qbar-dot", "aria-hidden": "true" }),
    h("span", { class: "waitbar-count", text: t("{count} waiting", { count: waiting.length }) }),
    h("span", { class: "chip", text: next.session }),
    h("span", { class: "qbar-text", text: q.question }),
    h("span", { class: "qbar-expand", text: `${t("Open")} →` }));
}
