// One timeline entry: the agent's question(s) and how they ended, as a compact summary.
import { h, when } from "./dom.js";
import { t } from "./i18n.js";

const outcomes = () => ({ skipped: t("Skipped"), expired: t("Expired"), cancelled: t("Cancelled"),
  undelivered: t("Undelivered") });

function summaryLines(view) {
  const answers = (view.result && view.result.answers && view.result.answers.answers) || {};
  return view.request.questions.map((q) => h("div", { class: "sum-line" },
    h("span", { class: "sum-head", text: `${q.header}: ` }),
    h("span", { class: "sum-answer", text: ((answers[q.id] || {}).answers || []).join(", ") })));
}

// An approval's end in words: who approved (and whether they edited the arguments), or rejected why.
function decision(view) {
  const result = view.approval.result || {};
  const by = (result.decidedBy || []).map((d) => d.user).join(", ");
  if (result.status === "approved") {
    return h("div", { class: "reply" }, h("div", { class: "reply-label", text: t("Approved by {names}", { names: by }) }),
      result.edited ? h("div", { class: "sum-line", text: t("with edited arguments") }) : null);
  }
  return h("div", { class: "reply elsewhere" }, h("div", { class: "reply-label", text: t("Rejected by {names}", { names: by }) }),
    result.reason ? h("div", { class: "sum-line sum-answer", text: result.reason }) : null);
}

function outcome(view) {
  if (view.approval && view.approval.result && view.approval.result.status !== "no_answer") return decision(view);
  if (view.status === "pending") {
    return h("div", { class: "outcome pending" }, h("span", { class: "pill wait",
      text: view.answerable ? t("Waiting for your answer") : t("Waiting for an answer on another surface") }));
  }
  if (view.status === "answered") {
    return h("div", { class: `reply${view.elsewhere ? " elsewhere" : ""}` },
      h("div", { class: "reply-label", text: view.elsewhere ? `${t("Answered elsewhere")} · ${view.answeredVia}`
        : t("You answered") }),
      summaryLines(view));
  }
  return h("div", { class: "outcome" }, h("span", { class: `pill ${view.reason}`, text: outcomes()[view.reason] || t("Ended") }));
}

// Reach, if any: how often it was reminded, and where escalation tiers sent it.
function reach(view) {
  const ds = view.deliveries || [];
  const reminded = Math.max(0, ...ds.map((d) => d.reminders || 0));
  const tiers = ds.filter((d) => d.tier > 0 && d.state === "delivered").map((d) => d.surface);
  const notes = [];
  if (reminded) notes.push(reminded === 1 ? t("reminded") : t("reminded {count}×", { count: reminded }));
  if (tiers.length) notes.push(t("escalated to {surfaces}", { surfaces: tiers.join(", ") }));
  return notes.length ? h("div", { class: "reach-note", text: notes.join(" · ") }) : null;
}

export function timelineItem(view) {
  return h("div", { class: `entry status-${view.status}`, dataset: { question: view.id } },
    h("article", { class: "ask" },
      h("div", { class: "ask-meta" }, h("span", { class: "who", text: view.agent }),
        h("time", { datetime: view.createdAt, text: when(view.createdAt) })),
      view.request.questions.map((q) => h("div", { class: "ask-q" },
        h("span", { class: "chip", text: q.header }), h("span", { class: "ask-text", text: q.question }))),
      reach(view)),
    outcome(view));
}

// How long history is kept ([store] keep: "90s", "12h", "30d" or "forever"), in words.
const KEPT = {
  d: (n) => (n === 1 ? t("History is kept for 1 day") : t("History is kept for {count} days", { count: n })),
  h: (n) => (n === 1 ? t("History is kept for 1 hour") : t("History is kept for {count} hours", { count: n })),
  m: (n) => (n === 1 ? t("History is kept for 1 minute") : t("History is kept for {count} minutes", { count: n })),
  s: (n) => (n === 1 ? t("History is kept for 1 second") : t("History is kept for {count} seconds", { count: n })),
};

export function keptFor(keep) {
  if (keep === "forever") return t("History is kept forever");
  const found = /^(\d+)([smhd])$/.exec(keep || "");
  return found ? KEPT[found[2]](Number(found[1])) : "";
}
