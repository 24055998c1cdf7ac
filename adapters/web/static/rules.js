// The "Allow for 1 h" rules in force, in a modal dialog (Esc closes it), each with Revoke.
import { h, when } from "./dom.js";
import { t } from "./i18n.js";

function ruleItem(rule, revoke) {
  const scope = rule.argumentsHash ? t("these arguments only") : t("any arguments");
  return h("li", { class: "rule" },
    h("div", { class: "rule-text" },
      h("span", { class: "rule-what" }, h("code", { text: rule.tool || t("any tool") }), ` · ${scope}`),
      h("span", { class: "rule-meta", text: t("{agent} · until {time}", { agent: rule.agent,
        time: when(rule.expiresAt) }) })),
    h("button", { type: "button", class: "ghost danger", text: t("Revoke"),
      "aria-label": t("Revoke the rule for {tool}", { tool: rule.tool || t("any tool") }),
      onclick: () => revoke(rule) }));
}

// api(path, body?) -> {status, data}, as app.js's
export async function showRules(api) {
  const dialog = h("dialog", { class: "rules-dialog", "aria-labelledby": "rules-title" });
  const list = h("ul", { class: "rules", "aria-live": "polite" });
  const status = h("p", { class: "rules-empty" });
  const load = async () => {
    const { status: code, data } = await api("/ui/api/rules");
    const rules = code === 200 && data ? data.rules : [];
    list.replaceChildren(...rules.map((r) => ruleItem(r, revoke)));
    status.textContent = rules.length ? "" : t("No rules are in force: every request is asked.");
  };
  const revoke = async (rule) => {
    await api(`/ui/api/rules/${encodeURIComponent(rule.id)}/revoke`, {});
    await load();
    dialog.querySelector(".close").focus();
  };
  dialog.append(
    h("header", { class: "panel-head" }, h("h2", { id: "rules-title", text: t("Allow rules") }),
      h("span", { class: "spacer" }),
      h("button", { type: "button", class: "icon close", "aria-label": t("Close"),
        onclick: () => dialog.close() }, "×")),
    h("p", { class: "hint", text: t("Requests a rule matches are approved at once, without asking. Each lasts one hour.") }),
    status, list);
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  await load();
  dialog.showModal();
}
