// Every word the page writes goes through t("English text {name}", { name }). The page arrives
// with its strings inline (#i18n, in the language of the person's pick or else the browser's),
// so the first thing drawn is already in that language; a switch fetches /ui/api/i18n.
const COOKIE = "askbridge_lang";
let strings = {};
export let locale = "en";
export let locales = [];
const originals = new WeakMap();
const listeners = [];

export function t(message, fields) {
  let text = strings[message] || message;
  for (const [key, value] of Object.entries(fields || {})) text = text.replaceAll(`{${key}}`, String(value));
  return text;
}

function use(loaded) {
  ({ messages: strings, locale, locales } = loaded);
  document.documentElement.lang = locale;
  translatePage();
}

async function fetchStrings() {
  try {
    const response = await fetch("/ui/api/i18n", { credentials: "same-origin" });
    if (response.ok) use(await response.json());
  } catch { /* keep the words shown: the page still works */ }
}

// What draws words outside the page's marked elements redraws them here after a switch.
export function onLanguage(redraw) {
  listeners.push(redraw);
}

// A person's pick is remembered for a year and wins over Accept-Language.
export async function switchTo(code) {
  document.cookie = `${COOKIE}=${encodeURIComponent(code)}; path=/; max-age=31536000; samesite=lax`;
  await fetchStrings();
  for (const redraw of listeners) redraw();
}

// The page's fixed words: elements marked data-t (their English text is the id), and the
// attributes named in data-t-attrs. The English ids are kept so a switch can translate again.
export function translatePage() {
  for (const el of document.querySelectorAll("[data-t]")) {
    if (!el.dataset.t) el.dataset.t = el.textContent.trim();
    el.textContent = t(el.dataset.t);
  }
  for (const el of document.querySelectorAll("[data-t-attrs]")) {
    if (!originals.has(el)) {
      originals.set(el, Object.fromEntries(el.dataset.tAttrs.split(" ").map((a) => [a, el.getAttribute(a) || ""])));
    }
    for (const [attr, message] of Object.entries(originals.get(el))) el.setAttribute(attr, t(message));
  }
}

// Modules run once the page is parsed, before any other script draws: the inline strings are
// read now, in step, so nothing can draw before them.
use(JSON.parse(document.getElementById("i18n").textContent));
