// Every word the page writes goes through t("English text {name}", { name }); translations come
// from /ui/api/i18n in the language the person picked (cookie), or else the browser's.
const COOKIE = "askbridge_lang";
let strings = {};
export let locale = "en";
export let locales = [];
const originals = new WeakMap();

export function t(message, fields) {
  let text = strings[message] || message;
  for (const [key, value] of Object.entries(fields || {})) text = text.replaceAll(`{${key}}`, String(value));
  return text;
}

export async function loadStrings() {
  try {
    const response = await fetch("/ui/api/i18n", { credentials: "same-origin" });
    if (response.ok) ({ messages: strings, locale, locales } = await response.json());
  } catch { /* keep English: the page still works */ }
  document.documentElement.lang = locale;
  translatePage();
}

// A person's pick is remembered for a year and wins over Accept-Language.
export async function switchTo(code) {
  document.cookie = `${COOKIE}=${encodeURIComponent(code)}; path=/; max-age=31536000; samesite=lax`;
  await loadStrings();
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
