// askbridge's question card for MCP Apps hosts: JSON-RPC over postMessage with the host (ui/*),
// the question from the tool's input, the answer through the app-only tool.
(() => {
  "use strict";
  const ANSWER_TOOL = "answer_question";
  const all = JSON.parse(document.getElementById("i18n").textContent);
  let words = all.en || {};
  const t = (m, fields) => {
    let text = words[m] || m;
    for (const [k, v] of Object.entries(fields || {})) text = text.replaceAll(`{${k}}`, String(v));
    return text;
  };
  const form = document.getElementById("form");
  const outcome = document.getElementById("outcome");
  let nextId = 1;
  const waiting = new Map();
  let questions = [];
  let ended = false;

  function send(message) { window.parent.postMessage({ jsonrpc: "2.0", ...message }, "*"); }
  function request(method, params) {
    const id = nextId++;
    send({ id, method, params });
    return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
  }
  function notify(method, params) { send({ method, params: params || {} }); }

  function useLocale(locale) {
    const code = String(locale || navigator.language || "en").toLowerCase().split("-")[0];
    words = all[code] || all.en || {};
    document.documentElement.lang = all[code] ? code : "en";
    for (const el of document.querySelectorAll("[data-t]")) el.textContent = t(el.dataset.t);
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "text") node.textContent = v; else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) if (c) node.append(c);
    return node;
  }

  function render() {
    form.replaceChildren(...questions.map((q, n) => {
      const kind = q.multiSelect ? "checkbox" : "radio";
      const hint = `hint-${n}`;
      return el("fieldset", { class: "qbody", "aria-describedby": hint },
        el("legend", {}, el("span", { class: "chip", text: q.header }),
          el("span", { class: "qtext", text: ` ${q.question}` })),
        el("div", { class: "hint", id: hint, text: q.multiSelect ? t("Choose all that apply") : t("Choose one") }),
        el("div", { class: "options" }, q.options.map((o) => el("label", { class: "option" },
          el("input", { type: kind, name: `q-${q.id}`, value: o.label }),
          el("span", { class: "otext" }, el("span", { class: "olabel", text: o.label }),
            o.description ? el("span", { class: "odesc", text: o.description }) : null)))),
        el("div", { class: "other" }, el("span", { class: "other-label", text: t("Other"), "aria-hidden": "true" }),
          el("input", { type: "text", class: "other-input", name: `other-${q.id}`, maxlength: "2000",
            placeholder: t("Type your own answer"), "aria-label": t("Other answer for {header}", { header: q.header }) })));
    }), el("div", { class: "error", id: "error", role: "alert" }),
    el("footer", { class: "panel-foot" }, el("span", { class: "spacer" }),
      el("button", { type: "button", class: "ghost skip", id: "skip", text: t("Skip") }),
      el("button", { type: "button", class: "primary", id: "submit", text: t("Submit") })));
    form.hidden = false;
    document.getElementById("skip").addEventListener("click", () => answer(null));
    document.getElementById("submit").addEventListener("click", () => answer(picked()));
    const first = form.querySelector("input");
    if (first) first.focus();
    resized();
  }

  function picked() {
    const answers = {};
    for (const q of questions) {
      const chosen = [...form.querySelectorAll(`input[name="q-${CSS.escape(q.id)}"]:checked`)].map((i) => i.value);
      const other = form.querySelector(`input[name="other-${CSS.escape(q.id)}"]`).value.trim();
      answers[q.id] = other ? (q.multiSelect ? [...chosen, other] : [other]) : chosen;
    }
    return answers;
  }

  async function answer(answers) {
    if (ended) return;
    const error = document.getElementById("error");
    error.textContent = "";
    for (const b of form.querySelectorAll("button")) b.disabled = true;
    try {
      const result = await request("tools/call", { name: ANSWER_TOOL, arguments: { answers, locale: document.documentElement.lang } });
      const text = (result.content || []).map((c) => c.text || "").join(" ");
      if (result.isError) { error.textContent = text; return; }
      finish(answers === null ? t("Skipped") : t("Answered"));
    } catch (e) {
      error.textContent = String(e && e.message || e);
    } finally {
      if (!ended) for (const b of form.querySelectorAll("button")) b.disabled = false;
    }
  }

  function finish(text) {
    ended = true;
    for (const i of form.querySelectorAll("input, button")) i.disabled = true;
    outcome.textContent = text;
    resized();
  }

  function resized() {
    notify("ui/notifications/size-changed", { width: document.documentElement.scrollWidth,
      height: document.documentElement.scrollHeight });
  }

  // Hosts sandbox the card without `allow-forms`, where a form cannot submit: Enter in a field
  // and the Submit button answer by script instead.
  form.addEventListener("submit", (ev) => ev.preventDefault());
  form.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !ev.isComposing && ev.target.matches("input")) {
      ev.preventDefault();
      answer(picked());
    }
  });

  window.addEventListener("message", (ev) => {
    if (ev.source !== window.parent) return;
    const m = ev.data;
    if (!m || m.jsonrpc !== "2.0") return;
    if (m.id !== undefined && !m.method && waiting.has(m.id)) {
      const { resolve, reject } = waiting.get(m.id);
      waiting.delete(m.id);
      if (m.error) reject(new Error(m.error.message)); else resolve(m.result);
      return;
    }
    const p = m.params || {};
    if (m.method === "ui/notifications/tool-input" && Array.isArray((p.arguments || {}).questions)) {
      questions = p.arguments.questions;
      render();
    } else if (m.method === "ui/notifications/tool-result") {
      const s = p.structuredContent || {};
      if (s.status === "answered") finish(t("Answered"));
      else if (s.status === "no_answer") finish(s.reason === "skipped" ? t("Skipped") : t("This question has already ended."));
    } else if (m.method === "ui/notifications/tool-cancelled") {
      finish(t("This question has already ended."));
    } else if (m.method === "ui/notifications/host-context-changed" && p.locale) {
      useLocale(p.locale);
      if (questions.length && !ended) render();
    } else if (m.method === "ui/resource-teardown" && m.id !== undefined) {
      send({ id: m.id, result: {} });
    } else if (m.method === "ping" && m.id !== undefined) {
      send({ id: m.id, result: {} });
    }
  });

  useLocale(null);
  request("ui/initialize", { appCapabilities: {}, appInfo: { name: "askbridge", version: "1" },
    protocolVersion: "2026-01-26" }).then((result) => {
    useLocale(((result || {}).hostContext || {}).locale);
    notify("ui/notifications/initialized");
  });
})();
