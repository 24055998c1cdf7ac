// Small DOM helpers. Every piece of text goes in as a text node: nothing is parsed as HTML.
import { locale, t } from "./i18n.js";

export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

let serverOffset = 0;

export function setServerTime(serverNow) {
  serverOffset = serverNow - Date.now();
}

export function leftUntil(iso) {
  return Date.parse(iso) - (Date.now() + serverOffset);
}

// A live m:ss countdown to `iso`; app.js ticks every [data-expires] element once a second.
export function countdown(iso) {
  const left = leftUntil(iso);
  return h("span", { class: `countdown${left < 60_000 ? " urgent" : ""}`, title: t("Time left to answer"),
    dataset: { expires: iso }, text: clock(left) });
}

export function clock(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

export function when(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  const time = d.toLocaleTimeString(locale, { hour: "2-digit", minute: "2-digit" });
  if (d.toDateString() === new Date().toDateString()) return time;
  return `${d.toLocaleDateString(locale, { month: "short", day: "numeric" })} ${time}`;
}

export function ago(when) {
  const ms = typeof when === "string" ? Date.parse(when) : when;
  const s = Math.round((Date.now() - ms) / 1000);
  if (s < 60) return t("just now");
  if (s < 3600) return t("{minutes} min ago", { minutes: Math.floor(s / 60) });
  if (s < 86400) return t("{hours} h ago", { hours: Math.floor(s / 3600) });
  return new Date(ms).toLocaleDateString(locale, { month: "short", day: "numeric" });
}

export function cookie(name) {
  for (const part of document.cookie.split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return decodeURIComponent(v.join("="));
  }
  return "";
}
