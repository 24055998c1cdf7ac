// The pending-question panel: a short stepper on wide screens, stacked cards on phones.
import { countdown, h } from "./dom.js";
import { t } from "./i18n.js";

export function newDraft() {
  return { step: 0, picks: {}, other: {} };
}

export function answerFor(q, draft) {
  const other = (draft.other[q.id] || "").trim();
  const picks = draft.picks[q.id] || [];
  if (!q.multiSelect) return other ? [other] : picks.slice(0, 1);
  return other ? [...picks, other] : [...picks];
}

export function isComplete(questions, draft) {
  return questions.every((q) => answerFor(q, draft).length > 0);
}

export class Panel {
  // hooks: submit(answers) -> Promise<string|null> (error text), skip(), collapse(), others()
  constructor(view, draft, hooks) {
    this.view = view;
    this.questions = view.request.questions;
    this.draft = draft;
    this.hooks = hooks;
    this.narrow = false;
    this.busy = false;
    this.error = "";
    this.root = h("section", { class: "panel", tabindex: "-1", "aria-label": t("Question") });
  }

  get current() {
    return this.questions[Math.min(this.draft.step, this.questions.length - 1)];
  }

  get last() {
    return this.draft.step >= this.questions.length - 1;
  }

  render(focus = true) {
    this.confirmingSkip = false;
    this.root.dataset.mode = this.narrow ? "stacked" : "stepper";
    if (this.narrow) this.root.replaceChildren(this.head(null), ...this.cards(), this.foot());
    else this.root.replaceChildren(this.head(this.current), this.body(this.current), this.foot());
    if (focus && !this.narrow) this.focus();
    return this.root;
  }

  focus() {
    const primary = this.root.querySelector(".primary");
    if (this.last && isComplete(this.questions, this.draft) && primary) primary.focus();
    else this.root.focus({ preventScroll: true });
  }

  head(q) {
    const n = this.questions.length;
    const others = this.hooks.others();
    return h("header", { class: "panel-head" },
      q ? h("span", { class: "chip", text: q.header }) : h("span", { class: "panel-kicker",
        text: n > 1 ? t("{count} questions from {agent}", { count: n, agent: this.view.agent })
          : t("1 question from {agent}", { agent: this.view.agent }) }),
      q && n > 1 ? h("span", { class: "stepper", "aria-label": t("Question number") },
        h("span", { class: "step-count", text: `${this.draft.step + 1}/${n}` }),
        h("span", { class: "dots", "aria-hidden": "true" }, this.questions.map((_, i) =>
          h("span", { class: i === this.draft.step ? "on" : i < this.draft.step ? "done" : "" })))) : null,
      h("span", { class: "spacer" }),
      others ? h("button", { type: "button", class: "link more", onclick: () => this.hooks.nextSession(),
        text: `${t("{count} more waiting", { count: others })} →` }) : null,
      countdown(this.view.expiresAt),
      h("button", { type: "button", class: "icon collapse", "aria-label": t("Collapse"),
        title: t("Collapse (Esc)"), onclick: () => this.hooks.collapse() }, "⌄"));
  }

  body(q) {
    const index = this.questions.indexOf(q);
    return h("div", { class: "qbody" },
      this.narrow ? h("div", { class: "card-head" },
        h("span", { class: "num", text: `${index + 1}` }), h("span", { class: "chip", text: q.header }))
        : null,
      h("h2", { class: "qtext", id: `qt-${q.id}`, text: q.question }),
      h("div", { class: "hint", text: q.multiSelect ? t("Choose all that apply") : t("Choose one") }),
      h("div", { class: "options", role: q.multiSelect ? "group" : "radiogroup",
        "aria-labelledby": `qt-${q.id}` }, q.options.map((o, i) => this.option(q, o, i))),
      this.otherField(q),
      !this.narrow && this.error ? h("div", { class: "error", role: "alert", text: this.error }) : null);
  }

  cards() {
    return this.questions.map((q) => h("article", { class: "qcard" }, this.body(q)));
  }

  option(q, o, i) {
    const picked = (this.draft.picks[q.id] || []).includes(o.label);
    const input = h("input", { type: q.multiSelect ? "checkbox" : "radio", name: `opt-${q.id}`,
      value: o.label, checked: picked, onclick: () => this.pick(q, i, input.checked) });
    return h("label", { class: `option${picked ? " picked" : ""}` }, input,
      h("span", { class: "key", text: String(i + 1), "aria-hidden": "true" }),
      h("span", { class: "otext" }, h("span", { class: "olabel", text: o.label }),
        o.description ? h("span", { class: "odesc", text: o.description }) : null));
  }

  otherField(q) {
    const input = h("input", { type: "text", class: "other-input", maxlength: "2000",
      placeholder: t("Type your own answer"), "aria-label": t("Other answer for {header}", { header: q.header }),
      value: this.draft.other[q.id] || "" });
    input.addEventListener("input", () => this.typeOther(q, input));
    input.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && !ev.isComposing) { ev.preventDefault(); this.advance(); }
    });
    return h("div", { class: "other" }, h("span", { class: "other-label", text: t("Other") }), input);
  }

  foot() {
    const done = isComplete(this.questions, this.draft);
    const ready = this.narrow || this.last ? done : answerFor(this.current, this.draft).length > 0;
    return h("footer", { class: "panel-foot" },
      this.narrow && this.error ? h("div", { class: "error", role: "alert", text: this.error }) : null,
      !this.narrow && this.questions.length > 1 ? h("button", { type: "button", class: "ghost back",
        disabled: this.draft.step === 0 || this.busy, onclick: () => this.back(), text: t("Back") }) : null,
      h("span", { class: "spacer" }),
      h("button", { type: "button", class: `ghost skip${this.confirmingSkip ? " confirm" : ""}`,
        disabled: this.busy, title: t("Skip every question in this prompt"), onclick: () => this.skip(),
        text: this.confirmingSkip ? t("Skip all {count}?", { count: this.questions.length }) : t("Skip") }),
      h("button", { type: "button", class: "primary", disabled: !ready || this.busy,
        onclick: () => this.advance(),
        text: this.narrow || this.last ? t("Submit") : t("Next") }));
  }

  refreshFoot() {
    const old = this.root.querySelector(".panel-foot");
    if (old) old.replaceWith(this.foot());
  }

  pick(q, i, on) {
    const label = q.options[i].label;
    const picks = this.draft.picks[q.id] || [];
    if (q.multiSelect) {
      this.draft.picks[q.id] = on ? [...new Set([...picks, label])] : picks.filter((p) => p !== label);
    } else {
      this.draft.picks[q.id] = [label];
      this.draft.other[q.id] = "";
    }
    this.error = "";
    // A pick never sends, on any screen: only Submit (or Enter) does, so it can still change.
    // In the desktop stepper a single choice before the last question moves on to the next.
    if (!q.multiSelect && !this.narrow && !this.last) this.advance();
    else this.render(!this.narrow);
  }

  typeOther(q, input) {
    this.draft.other[q.id] = input.value;
    if (!q.multiSelect && input.value.trim()) {
      this.draft.picks[q.id] = [];
      for (const el of input.closest(".qbody").querySelectorAll(".option")) {
        el.classList.remove("picked");
        el.querySelector("input").checked = false;
      }
    }
    this.refreshFoot();
  }

  back() {
    if (this.draft.step > 0) this.draft.step -= 1;
    this.error = "";
    this.render();
  }

  advance() {
    if (this.busy) return;
    if (!this.narrow && !this.last) {
      if (!answerFor(this.current, this.draft).length) return this.fail(t("Choose an option or write your own answer."));
      this.draft.step += 1;
      this.error = "";
      return this.render();
    }
    if (!isComplete(this.questions, this.draft)) {
      const missing = this.questions.find((q) => !answerFor(q, this.draft).length);
      return this.fail(t("{header}: choose an option or write your own answer.", { header: missing.header }));
    }
    const answers = Object.fromEntries(this.questions.map((q) => [q.id, answerFor(q, this.draft)]));
    return this.send(() => this.hooks.submit(answers));
  }

  // Skip ends every question of the prompt: with several, the first tap only asks to confirm.
  skip() {
    if (this.questions.length > 1 && !this.confirmingSkip) {
      this.confirmingSkip = true;
      this.refreshFoot();
      this.root.querySelector(".skip").focus();
      return null;
    }
    return this.send(() => this.hooks.skip());
  }

  async send(call) {
    this.busy = true;
    this.refreshFoot();
    const problem = await call();
    this.busy = false;
    if (problem) this.fail(problem);
  }

  fail(text) {
    this.error = text;
    this.render();
  }

  // Free text from the composer answers the question on screen (the current step).
  answerWithText(text) {
    const q = this.current;
    this.draft.other[q.id] = text;
    if (!q.multiSelect) this.draft.picks[q.id] = [];
    this.advance();
  }

  onKey(ev) {
    if (ev.key === "Escape") { ev.preventDefault(); this.hooks.collapse(); return; }
    const typing = ev.target.closest && ev.target.closest("input[type=text], textarea");
    if (typing || ev.altKey || ev.ctrlKey || ev.metaKey || this.narrow) return;
    const q = this.current;
    const n = Number.parseInt(ev.key, 10);
    if (n >= 1 && n <= q.options.length) {
      ev.preventDefault();
      const picked = (this.draft.picks[q.id] || []).includes(q.options[n - 1].label);
      this.pick(q, n - 1, q.multiSelect ? !picked : true);
    } else if (ev.key === "Enter" && !(ev.target instanceof HTMLButtonElement)) {
      ev.preventDefault();
      this.advance();
    }
  }
}
