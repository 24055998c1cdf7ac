// askbridge service worker: keeps the app shell (never any question) for offline starts, shows
// pushed questions as notifications, answers from their action buttons with the page's own auth.
const SHELL = "askbridge-shell-v2";
const AUTH = "askbridge-auth-v1";
const CSRF_KEY = "/__askbridge/csrf";
const ASSETS = ["/ui/static/app.js", "/ui/static/dom.js", "/ui/static/panel.js",
  "/ui/static/timeline.js", "/ui/static/pwa.js", "/ui/static/sessions.js", "/ui/static/live.js",
  "/ui/static/i18n.js", "/ui/static/approval.js", "/ui/static/rules.js", "/ui/static/app.css",
  "/ui/static/icon-192.png", "/ui/static/icon-512.png", "/manifest.webmanifest"];
const OFFLINE = { error: "offline", details: [{ loc: "request",
  msg: "askbridge cannot be reached right now; answers are possible again once it is back." }] };

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(SHELL);
    await cache.addAll(ASSETS);
    const page = await fetch("/", { credentials: "same-origin" }).catch(() => null);
    if (page && page.ok) await cache.put("/", page);
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name !== SHELL && name !== AUTH) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

// fetch: the network first, the saved shell when it is down --------------------------------

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (url.origin !== location.origin || event.request.method !== "GET") return;
  if (url.pathname === "/" && event.request.mode === "navigate") {
    if (url.searchParams.has("token")) return; // a login link: the browser handles it alone
    event.respondWith(shell(event.request, "/"));
  } else if (url.pathname.startsWith("/ui/static/") || url.pathname === "/manifest.webmanifest") {
    event.respondWith(shell(event.request, url.pathname));
  } else if (url.pathname.startsWith("/ui/api/")) {
    event.respondWith(api(event.request));
  }
});

async function shell(request, key) {
  const cache = await caches.open(SHELL);
  try {
    const response = await fetch(request);
    if (response.ok && response.type === "basic") await cache.put(key, response.clone());
    return response;
  } catch {
    const saved = await cache.match(key);
    if (saved) { tellPages({ type: "offline" }); return saved; }
    throw new Error("offline and nothing saved");
  }
}

async function api(request) {
  // Questions and answers are never cached: offline, the page is told so and shows it.
  try {
    return await fetch(request);
  } catch {
    tellPages({ type: "offline" });
    return new Response(JSON.stringify(OFFLINE), { status: 503,
      headers: { "content-type": "application/json", "x-askbridge-offline": "1" } });
  }
}

async function tellPages(message) {
  for (const client of await self.clients.matchAll({ type: "window" })) client.postMessage(message);
}

// the page hands over its CSRF token, for answers sent from notifications ---------------------

self.addEventListener("message", (event) => {
  const data = event.data || {};
  if (data.type === "csrf" && typeof data.token === "string") {
    event.waitUntil(caches.open(AUTH).then((c) => c.put(CSRF_KEY, new Response(data.token))));
  }
});

async function csrfToken() {
  if (self.cookieStore) {
    const cookie = await self.cookieStore.get("askbridge_csrf").catch(() => null);
    if (cookie && cookie.value) return cookie.value;
  }
  const saved = await (await caches.open(AUTH)).match(CSRF_KEY);
  return saved ? saved.text() : "";
}

// push ----------------------------------------------------------------------------------------

self.addEventListener("push", (event) => {
  let data = null;
  try { data = event.data ? event.data.json() : null; } catch { data = null; }
  if (!data || typeof data.questionId !== "string") return;
  if (data.closed) { event.waitUntil(closeNotifications(data.questionId)); return; }
  event.waitUntil(self.registration.showNotification(data.title || "askbridge", {
    body: data.body || "", tag: data.questionId, renotify: true, requireInteraction: true,
    icon: "/ui/static/icon-192.png", badge: "/ui/static/icon-192.png",
    actions: Array.isArray(data.actions) ? data.actions : [],
    data: { questionId: data.questionId, url: data.url || "/", hash: data.hash || null },
  }));
});

async function closeNotifications(questionId) {
  for (const note of await self.registration.getNotifications({ tag: questionId })) note.close();
}

self.addEventListener("notificationclick", (event) => {
  const note = event.notification;
  const { questionId, url, hash } = note.data || {};
  note.close();
  // A question's option, or an approval's Approve / Reject (bound to the payload it showed).
  const chosen = /^(answer:\d|approve|reject)$/.test(event.action || "") ? event.action : null;
  // Reject needs a reason: it opens the card with the reason field ready.
  if (chosen === "reject") event.waitUntil(openPanel(`${url}/reject`));
  else event.waitUntil(chosen ? answer(questionId, chosen, url, hash) : openPanel(url));
});

async function answer(questionId, action, url, hash) {
  const response = await fetch(`/ui/api/questions/${encodeURIComponent(questionId)}/action`, {
    method: "POST", credentials: "same-origin",
    headers: { "content-type": "application/json", "x-askbridge-csrf": await csrfToken() },
    body: JSON.stringify(hash ? { action, hash } : { action }),
  }).catch(() => null);
  // Anything but a taken answer (signed out, offline, already ended) opens the app to show why.
  if (!response || response.status !== 200) await openPanel(url);
}

async function openPanel(url) {
  const target = new URL(url || "/", location.origin);
  for (const client of await self.clients.matchAll({ type: "window", includeUncontrolled: true })) {
    if (new URL(client.url).origin === target.origin && "focus" in client) {
      client.postMessage({ type: "open", hash: target.hash });
      return client.focus();
    }
  }
  return self.clients.openWindow(target.href);
}
