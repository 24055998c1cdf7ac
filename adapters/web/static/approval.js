// The approval card: what an agent is about to do, its arguments in full, and the decision.
// Every decision names the payload hash the card showed, so it counts only for those arguments.
import { countdown, h } from "./dom.js";
import { t } from "./i18n.js";

const RISKS = () => ({ low: t("Low risk"), medium: t("Medium risk"), high: t("High risk") });

export function pretty(value) {
  return JSON.stringify(value || {}, null, 2);
}

// The editor's text as arguments: an object, or the sentence that says what is wrong.
export function parseArguments(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { problem: t("This is not valid JSON: {error}", { error: err.message }) };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { problem: t("The arguments must be a JSON object: {…}.") };
  }
  return { value };
}

export class ApprovalCard {
  // hooks: decide(body) -> Promise<{message, details}|null>, collapse(), others(), nextSession()
  constructor(view, hooks) {
    this.view = view;
    this.approval = view.approval;
    this.hooks = hooks;
    this.narrow = false;
    this.mode = "idle"; // idle | reject | edit | allow
    this.busy = false;
    this.error = "";
    this.details = [];
    this.reason = "";
    this.draft = pretty(this.approval.arguments);
    this.scope = "arguments";
    this.root = h("section", { class: "panel approval", tabindex: "-1",
      "aria-labelledby": `ap-action-${view.id}` });
  }

  render(focus = true) {
    this.root.dataset.mode = this.narrow ? "stacked" : "stepper";
    this.root.dataset.risk = this.approval.risk;
    this.root.replaceChildren(this.head(), this.body(), this.foot());
    if (focus) this.focus();
    return this.root;
  }

  focus() {
    const target = this.root.querySelector("[data-autofocus]");
    if (target) target.focus();
    else if (!this.narrow) this.root.focus({ preventScroll: true });
  }

  head() {
    const a = this.approval;
    const others = this.hooks.others();
    return h("header", { class: "panel-head" },
      h("span", { class: "chip", text: t("Approval") }),
      h("span", { class: `risk risk-${a.risk}`, text: RISKS()[a.risk] || a.risk }),
      h("span", { class: "spacer" }),
      others ? h("button", { type: "button", class: "link more", onclick: () => this.hooks.nextSession(),
        text: `${t("{count} more waiting", { count: others })} →` }) : null,
      countdown(this.view.expiresAt),
      h("button", { type: "button", class: "icon collapse", "aria-label": t("Collapse"),
        title: t("Collapse (Esc)"), onclick: () => this.hooks.collapse() }, "⌄"));
  }

  body() {
    const a = this.approval;
    const votes = a.votes && a.votes.required > 1
      ? h("div", { class: "votes", text: t("{have} of {required} approvals so far", a.votes) }) : null;
    return h("div", { class: "qbody" },
      h("div", { class: "ap-from", text: t("{agent} asks to run this", { agent: this.view.agent }) }),
      h("h2", { class: "qtext", id: `ap-action-${this.view.id}`, text: a.action }),
      a.tool ? h("div", { class: "ap-tool" }, h("span", { class: "ap-key", text: t("Tool") }),
        h("code", { text: a.tool })) : null,
      votes,
      this.mode === "edit" ? this.editor() : this.arguments(),
      // The fingerprint every surface shows (`Payload: #3f1c0a9b52de`); the whole SHA-256 on hover.
      h("div", { class: "ap-hash", title: `sha256:${a.hash}` },
        h("span", { class: "ap-key", text: t("Payload") }),
        h("code", { text: `#${a.hash.slice(0, 12)}` })),
      this.mode === "reject" ? this.rejectField() : null,
      this.mode === "allow" ? this.allowChoice() : null,
      this.error ? h("div", { class: "error", role: "alert", text: this.error }) : null);
  }

  arguments() {
    return h("pre", { class: "ap-args", tabindex: "0", role: "region",
      "aria-label": t("Arguments"), text: pretty(this.approval.arguments) });
  }

  editor() {
    const id = `ap-edit-${this.view.id}`;
    const area = h("textarea", { class: "ap-editor", id, rows: "10", spellcheck: "false",
      autocapitalize: "off", autocomplete: "off", "aria-invalid": this.details.length ? "true" : "false",
      "aria-describedby": `${id}-errors`, "data-autofocus": true });
    area.value = this.draft;
    area.addEventListener("input", () => { this.draft = area.value; });
    area.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); this.approveEdited(); }
    });
    return h("div", { class: "ap-edit" },
      h("label", { for: id, class: "ap-key", text: t("Edit the arguments (JSON)") }),
      area,
      h("ul", { class: "ap-errors", id: `${id}-errors`, "aria-live": "polite" },
        this.details.map((d) => h("li", {}, h("code", { text: d.loc }), " ", d.msg))));
  }

  rejectField() {
    const id = `ap-reason-${this.view.id}`;
    const input = h("textarea", { class: "ap-reason", id, rows: "2", maxlength: "1000",
      placeholder: t("Why not? The agent reads this."), "data-autofocus": true });
    input.value = this.reason;
    input.addEventListener("input", () => { this.reason = input.value; });
    input.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) { ev.preventDefault(); this.reject(); }
    });
    return h("div", { class: "ap-field" }, h("label", { for: id, class: "ap-key", text: t("Reason") }), input);
  }

  allowChoice() {
    const choice = (value, label) => {
      const input = h("input", { type: "radio", name: `ap-scope-${this.view.id}`, value,
        checked: this.scope === value, onchange: () => { this.scope = value; } });
      if (this.scope === value) input.setAttribute("data-autofocus", "");
      return h("label", { class: `option${this.scope === value ? " picked" : ""}` }, input,
        h("span", { class: "otext" }, h("span", { class: "olabel", text: label })));
    };
    const tool = this.approval.tool || t("this action");
    return h("fieldset", { class: "ap-scope" },
      h("legend", { class: "ap-key", text: t("Allow for 1 hour, without asking again:") }),
      h("div", { class: "options", role: "radiogroup" },
        choice("arguments", t("{tool} with these arguments", { tool })),
        choice("any", t("{tool} with any arguments", { tool }))));
  }

  foot() {
    const a = this.approval;
    const b = (cls, text, onclick, extra = {}) => h("button", { type: "button", class: cls,
      disabled: this.busy, onclick, text, ...extra });
    const buttons = {
      idle: [
        b("ghost danger reject", t("Reject"), () => this.open("reject")),
        a.allowEdit ? b("ghost edit", t("Edit"), () => this.open("edit")) : null,
        b("ghost allow", t("Allow for 1 h"), () => this.open("allow")),
        h("span", { class: "spacer" }),
        b("primary approve", t("Approve"), () => this.approve()),
      ],
      reject: [b("ghost", t("Cancel"), () => this.open("idle")), h("span", { class: "spacer" }),
        b("primary danger", t("Reject"), () => this.reject())],
      edit: [b("ghost", t("Cancel"), () => this.open("idle")), h("span", { class: "spacer" }),
        b("primary", t("Approve edited"), () => this.approveEdited())],
      allow: [b("ghost", t("Cancel"), () => this.open("idle")), h("span", { class: "spacer" }),
        b("primary", t("Allow for 1 h"), () => this.allow())],
    }[this.mode];
    return h("footer", { class: "panel-foot" }, buttons);
  }

  open(mode) {
    this.mode = mode;
    this.error = "";
    this.details = [];
    this.render();
  }

  approve() { return this.send({ decision: "approve" }); }

  reject() {
    const reason = this.reason.trim();
    if (!reason) return this.fail(t("Say why, so the agent can do better."));
    return this.send({ decision: "reject", reason });
  }

  approveEdited() {
    const parsed = parseArguments(this.draft);
    if (parsed.problem) {
      this.details = [];
      return this.fail(parsed.problem);
    }
    return this.send({ decision: "approve", arguments: parsed.value });
  }

  allow() { return this.send({ decision: "allow", scope: this.scope }); }

  async send(body) {
    if (this.busy) return;
    this.busy = true;
    this.error = "";
    this.render(false);
    const problem = await this.hooks.decide({ ...body, hash: this.approval.hash });
    this.busy = false;
    if (problem) {
      this.details = problem.details || [];
      this.fail(problem.message);
    }
  }

  fail(text) {
    this.error = text;
    this.render();
  }

  // Words typed in the composer: `approve`, or `reject <reason>` (also setuju / tolak).
  answerWithText(text) {
    const said = /^\s*(approve|setuju)\s*$/i.exec(text);
    const no = /^\s*(reject|tolak)\b[\s:,-]*(.*)$/is.exec(text);
    if (said) return this.approve();
    if (no) {
      this.reason = no[2];
      this.mode = "reject";
      return this.reject();
    }
    return this.fail(t("Use the buttons, or type approve, or reject and your reason."));
  }

  onKey(ev) {
    if (ev.key !== "Escape") return;
    ev.preventDefault();
    if (this.mode !== "idle") this.open("idle");
    else this.hooks.collapse();
  }
}
