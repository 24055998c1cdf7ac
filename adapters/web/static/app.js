// askbridge Control UI: sessions, their timelines, the pending-question panel, live updates.
import { clock, cookie, countdown, h, leftUntil, setServerTime } from "./dom.js";
import { locale, locales, onLanguage, switchTo, t } from "./i18n.js";
import { Panel, newDraft } from "./panel.js";
import { ApprovalCard } from "./approval.js";
import { showRules } from "./rules.js";
import { connect, showConnection } from "./live.js";
import { keyOf, renderSessions, waitingBar } from "./sessions.js";
import { keptFor, timelineItem } from "./timeline.js";

const $ = (id) => document.getElementById(id);
const narrowQuery = window.matchMedia("(max-width: 720px)");
const state = {
  sessions: [], pending: [], current: null, timeline: [], notes: [], keep: null,
  drafts: new Map(), collapsed: new Set(), panel: null, dockKey: "", signedOut: false,
  pinned: false, // a person opened this session (a click, its address): the page stays on it
  rejecting: false, // opened by an approval notification's Reject: the card asks the reason
};

// HTTP ----------------------------------------------------------------------------------------

async function api(path, body) {
  const init = { credentials: "same-origin", headers: {} };
  if (body !== undefined) {
    init.method = "POST";
    init.body = JSON.stringify(body);
    init.headers = { "content-type": "application/json", "x-askbridge-csrf": cookie("askbridge_csrf") };
  }
  const response = await fetch(path, init);
  if (response.status === 401) signedOut();
  let data = null;
  try { data = await response.json(); } catch { data = null; }
  return { status: response.status, data };
}

function signedOut() {
  state.signedOut = true;
  document.body.replaceChildren(h("div", { class: "signed-out" },
    h("h1", { text: t("Signed out") }),
    h("p", { text: t("Open the login link that askbridge serve printed (…/?token=…) to sign in again.") })));
}

// state ---------------------------------------------------------------------------------------

let refreshing = null, again = false;

function refresh() {
  if (refreshing) { again = true; return refreshing; }
  refreshing = (async () => {
    try {
      do { again = false; await load(); } while (again);
    } finally { refreshing = null; }
  })();
  return refreshing;
}

async function load() {
  const { status, data } = await api("/ui/api/state");
  if (status !== 200 || !data) return;
  setServerTime(data.now);
  state.sessions = data.sessions;
  state.pending = data.pending;
  chooseSession();
  if (state.current) {
    const [agent, session] = state.current.split("\u0000");
    const q = new URLSearchParams({ agent, session });
    const timeline = await api(`/ui/api/timeline?${q}`);
    if (timeline.status === 200) {
      state.timeline = timeline.data.items.slice().reverse();
      state.keep = timeline.data.keep;
    }
  }
  render();
}

function pendingFor(key) {
  return state.pending.find((v) => keyOf(v.agent, v.session) === key) || null;
}

// Until a person opens a session, the page follows the questions waiting; after that it stays
// where they went, and the waiting bar offers the others.
function chooseSession() {
  const fromHash = decodeHash();
  const known = (key) => state.sessions.some((s) => keyOf(s.agent, s.session) === key);
  if (fromHash && known(fromHash) && fromHash !== state.current) return select(fromHash, false);
  if (state.current && known(state.current) && (state.pinned || pendingFor(state.current))) return;
  const waiting = state.pending[state.pending.length - 1];
  if (waiting) return select(keyOf(waiting.agent, waiting.session), false);
  if (!state.current || !known(state.current)) {
    const first = state.sessions[0];
    if (first) select(keyOf(first.agent, first.session), false);
  }
}

function select(key, reload = true) {
  if (state.current !== key) { state.timeline = []; state.notes = []; }
  state.current = key;
  const [agent, session] = key.split("\u0000");
  const hash = `#${encodeURIComponent(agent)}/${encodeURIComponent(session)}`;
  if (location.hash !== hash) history.replaceState(null, "", hash);
  if (reload) refresh();
}

// A person's own choice: the page keeps it however the questions change.
function open(key) {
  state.pinned = true;
  select(key);
}

function decodeHash() {
  const [agent, session] = location.hash.slice(1).split("/");
  return agent && session ? keyOf(decodeURIComponent(agent), decodeURIComponent(session)) : null;
}

// rendering -----------------------------------------------------------------------------------

function render() {
  const box = $("timeline");
  const stick = box.scrollHeight - box.scrollTop - box.clientHeight < 80;
  renderSessions($("sessions"), state.sessions, state.current, open);
  renderHeader();
  renderTimeline();
  renderDock();
  tick();
  if (stick) box.scrollTop = box.scrollHeight;
}

function renderHeader() {
  if (!state.current) return;
  const [agent, session] = state.current.split("\u0000");
  $("title").textContent = session;
  // Count questions, not prompts: one prompt may hold up to three.
  const n = state.timeline.reduce((sum, v) => sum + v.request.questions.length, 0);
  $("subtitle").textContent = t("Agent: {agent} · Session: {session}", { agent, session }) + " · " +
    (n === 1 ? t("1 question") : t("{count} questions", { count: n })) +
    (state.keep ? ` · ${keptFor(state.keep)}` : "");
}

function renderTimeline() {
  const box = $("timeline");
  const docked = state.current ? pendingFor(state.current) : null;
  const items = state.timeline.filter((v) => !docked || v.id !== docked.id).map(timelineItem);
  const notes = state.notes.map((text) => h("div", { class: "note", role: "status", text }));
  if (docked && !items.length) {
    const [title, lead] = docked.approval
      ? [t("An approval is waiting"), t("{agent} asks you to approve what it is about to do, below.", { agent: docked.agent })]
      : [t("A question is waiting"), t("{agent} asked and is waiting for your answer below.", { agent: docked.agent })];
    items.push(h("div", { class: "empty waiting" }, h("div", { class: "empty-title", text: title }),
      h("p", { text: lead })));
  } else if (!items.length && !notes.length) {
    items.push(h("div", { class: "empty" }, h("div", { class: "empty-title", text: t("No questions yet") }),
      h("p", { text: t("When an agent calls ask_user, its question shows up here and waits for you.") })));
  }
  box.replaceChildren(...items, ...notes);
  if (state.notes.length) box.scrollTop = box.scrollHeight;
}

function renderDock() {
  const view = state.current ? pendingFor(state.current) : null;
  if (view && view.approval && state.rejecting) state.collapsed.delete(view.id);
  const collapsed = view ? state.collapsed.has(view.id) : false;
  const mode = narrowQuery.matches ? "narrow" : "wide";
  const key = `${view ? view.id : ""}|${collapsed}|${mode}`;
  $("dock").dataset.state = view ? (collapsed ? "collapsed" : "open") : "idle";
  const input = $("composer-input");
  input.placeholder = view ? t("Type an answer to “{header}”…", { header: currentQuestion(view).header })
    : t("Nothing to answer right now");
  const slot = $("question-slot");
  if (!view) {
    const others = state.pending.filter((v) => keyOf(v.agent, v.session) !== state.current);
    state.panel = null;
    state.dockKey = "";
    slot.replaceChildren(...(others.length ? [waitingBar(others, nextSession)] : []));
    return;
  }
  // An approval notification's Reject opens the card at `#agent/session/reject`: ask the reason.
  const rejecting = Boolean(view.approval) && state.rejecting;
  if (key === state.dockKey && !rejecting) return;
  state.dockKey = key;
  if (!state.drafts.has(view.id)) state.drafts.set(view.id, newDraft());
  if (!state.panel || state.panel.view.id !== view.id) {
    const common = { collapse: () => collapse(view.id), others: othersWaiting, nextSession };
    state.panel = view.approval ? new ApprovalCard(view, { ...common, decide: (body) => decide(view, body) })
      : new Panel(view, state.drafts.get(view.id), {
        ...common, submit: (answers) => answer(view, answers), skip: () => answer(view, null) });
  }
  state.panel.narrow = mode === "narrow";
  if (rejecting) {
    state.panel.mode = "reject";
    state.rejecting = false;
  }
  if (collapsed) slot.replaceChildren(questionBar(view));
  else slot.replaceChildren(state.panel.render(true));
  if (rejecting) state.panel.focus(); // (re)attached just now: the reason field takes the focus
}

function currentQuestion(view) {
  if (view.approval) return { header: view.request.questions[0].header, question: view.approval.action };
  const draft = state.drafts.get(view.id);
  return view.request.questions[draft ? draft.step : 0] || view.request.questions[0];
}

function questionBar(view) {
  const q = currentQuestion(view);
  return h("button", { type: "button", class: "qbar", onclick: () => expand(view.id),
    "aria-label": t("Expand the question") },
    h("span", { class: "qbar-dot", "aria-hidden": "true" }), h("span", { class: "chip", text: q.header }),
    h("span", { class: "qbar-text", text: q.question }),
    countdown(view.expiresAt),
    h("span", { class: "qbar-expand", text: `${t("Expand")} ⌃` }));
}

function othersWaiting() {
  return state.pending.filter((v) => keyOf(v.agent, v.session) !== state.current).length;
}

function nextSession() {
  const other = state.pending.find((v) => keyOf(v.agent, v.session) !== state.current);
  if (other) open(keyOf(other.agent, other.session));
}

function collapse(id) { state.collapsed.add(id); render(); $("composer-input").focus(); }
function expand(id) { state.collapsed.delete(id); render(); }

function tick() {
  for (const el of document.querySelectorAll("[data-expires]")) {
    const left = leftUntil(el.dataset.expires);
    el.textContent = clock(left);
    el.classList.toggle("urgent", left < 60_000);
  }
}

// actions -------------------------------------------------------------------------------------

async function answer(view, answers) {
  const { status, data } = await api(`/ui/api/questions/${encodeURIComponent(view.id)}/answer`, { answers });
  if (status === 200) {
    state.pending = state.pending.filter((v) => v.id !== view.id);
    state.drafts.delete(view.id);
    renderDock();
    await refresh();
    return null;
  }
  if (status === 409) {
    state.notes.push(t("This question had already ended, so your answer was not used."));
    await refresh();
    return null;
  }
  return (data && (data.message || (data.details && data.details[0].msg))) || t("That did not work; try again.");
}

// An approval's decision: null when taken, else what to show ({message, details}).
async function decide(view, body) {
  const { status, data } = await api(`/ui/api/approvals/${encodeURIComponent(view.id)}/decision`, body);
  if (status === 200) {
    if (data && data.message && !data.ended) state.notes.push(data.message);
    if (data && data.ended) {
      state.pending = state.pending.filter((v) => v.id !== view.id);
      state.panel = null;
    }
    await refresh();
    return null;
  }
  if (status === 409 && data && data.ended) {
    state.notes.push(t("This approval had already been decided, so your decision was not used."));
    await refresh();
    return null;
  }
  const details = (data && data.details) || [];
  return { message: (data && data.message) || (details[0] && details[0].msg) || t("That did not work; try again."),
    details: details.filter((d) => d.loc && d.loc.startsWith("arguments")) };
}

function onCompose(ev) {
  ev.preventDefault();
  const input = $("composer-input");
  const text = input.value.trim();
  if (!text) return;
  input.value = "";
  autosize();
  const view = state.current ? pendingFor(state.current) : null;
  if (!view || !state.panel) {
    state.notes.push(t("There is no question to answer right now, so nothing was sent. askbridge is not a chat: when an agent asks, you can answer here."));
    renderTimeline();
    return;
  }
  state.collapsed.delete(view.id);
  renderDock();
  state.panel.answerWithText(text);
}

function autosize() {
  const input = $("composer-input");
  input.style.height = "auto";
  input.style.height = `${Math.min(input.scrollHeight, 160)}px`;
}

// The language switch: shown once there is a choice; a pick re-renders everything in place.
function languageSwitch() {
  const select = $("lang");
  const short = narrowQuery.matches; // phones: the strip has room for `ID`, not the name
  select.replaceChildren(...locales.map((l) => h("option", { value: l.code,
    text: short ? l.code.toUpperCase() : l.name, title: l.name, selected: l.code === locale })));
  select.hidden = locales.length < 2;
  select.onchange = () => switchTo(select.value);
}

function relabel() {
  showConnection();
  state.dockKey = "";
  state.panel = null;
  render();
}

function start() {
  if (decodeHash()) state.pinned = true; // opened at a session's address
  state.rejecting = location.hash.endsWith("/reject");
  showConnection();
  languageSwitch();
  onLanguage(relabel);
  // Every browser, on every replica, this one included: each must log in with the token again.
  $("signout").addEventListener("click", async () => {
    if ((await api("/ui/api/sessions/end", {})).status === 200) signedOut();
  });
  $("rules").addEventListener("click", () => showRules(api));
  $("composer").addEventListener("submit", onCompose);
  $("composer-input").addEventListener("input", autosize);
  $("composer-input").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) onCompose(ev);
  });
  document.addEventListener("keydown", (ev) => {
    const panel = state.panel;
    if (panel && panel.root.isConnected && !ev.defaultPrevented) panel.onKey(ev);
  });
  window.addEventListener("hashchange", () => {
    state.rejecting = location.hash.endsWith("/reject");
    const key = decodeHash();
    if (key) open(key);
  });
  narrowQuery.addEventListener("change", renderDock);
  narrowQuery.addEventListener("change", languageSwitch);
  setInterval(tick, 1000);
  connect(refresh, () => state.signedOut);
  refresh();
}

start();
