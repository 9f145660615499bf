// What every page shares: the JSON API, tokens, the DOM builder, errors.
import { el } from "./dom.js";

export { el };

export class ApiError extends Error {
  constructor(status, message, rule) {
    super(message);
    this.status = status;
    this.rule = rule || null;
  }
}

/**
 * Call the JSON API; throws ApiError naming the server's reason. Errors are RFC 9457
 * problem details (application/problem+json): `detail` says what went wrong, `rule`
 * names the game rule a refused command breaks.
 */
export async function api(path, { token = null, method = "GET", body = undefined } = {}) {
  const headers = { Accept: "application/json, application/problem+json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const resp = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await resp.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!resp.ok) {
    const message = (data && (data.detail || data.error || data.title)) || `${resp.status} ${resp.statusText}`;
    throw new ApiError(resp.status, message, data && data.rule);
  }
  return data;
}

/** The page's <main> and the data the server put on it (data-match, …). */
export function page() {
  const main = document.getElementById("main");
  return { main, data: main.dataset };
}

/** Replace the page content; the first heading names the page for screen readers. */
export function show(main, ...nodes) {
  main.replaceChildren(...nodes.flat(Infinity).filter((n) => n !== null && n !== undefined && n !== false));
}

/**
 * A rule citation ("uxinjo §2.2 B (…)", or a ruling note "RULING §2.3: …" of `game`) as a
 * link to its rules page, which sends the browser on to the section cited; plain text
 * when it cites no section.
 */
export function ruleLink(rule, game = null) {
  const own = /^([a-z][a-z-]*) §/.exec(rule);
  const pageName = own ? own[1] : game;
  if (!pageName || !rule.includes("§")) return document.createTextNode(rule);
  return el("a", { href: `/ui/rules/${encodeURIComponent(pageName)}?cite=${encodeURIComponent(rule)}`, class: "rule" }, rule);
}

export function errorBox(err) {
  if (err instanceof ApiError && err.rule) {
    return el("p", { class: "error", role: "alert" }, `${err.message} (rule: `, ruleLink(err.rule), ")");
  }
  return el("p", { class: "error", role: "alert" }, err instanceof ApiError ? err.message : String(err));
}

// A seat's secret stays in this tab: it arrives in the URL fragment (#token=…, never sent
// to a server), is kept in sessionStorage per match, and is removed from the address bar.
const TOKEN_KEY = (scope) => `kartludo-token:${scope}`;

export function takeTokenFromFragment(scope) {
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get("token");
  if (token) {
    sessionStorage.setItem(TOKEN_KEY(scope), token);
    params.delete("token");
    const rest = params.toString();
    history.replaceState(null, "", location.pathname + location.search + (rest ? `#${rest}` : ""));
  }
  return sessionStorage.getItem(TOKEN_KEY(scope));
}

export function storeToken(scope, token) {
  if (token) sessionStorage.setItem(TOKEN_KEY(scope), token);
  else sessionStorage.removeItem(TOKEN_KEY(scope));
}

export function storedToken(scope) {
  return sessionStorage.getItem(TOKEN_KEY(scope));
}

/** The TD pages' one token (the TD page's and the new-match page's alike). */
export const TD_SCOPE = "td";

/**
 * A TD page without a usable token asks for one: ``title`` heads the page, ``intro``
 * says what the token is for; the token typed is kept in the tab, then ``onToken(token)``.
 */
export function askForTdToken(main, { title, message = null, intro, onToken }) {
  const input = el("input", { type: "password", id: "token", name: "token", autocomplete: "off", required: true, size: 40 });
  show(main,
    el("h1", {}, title),
    message ? el("p", { class: "error", role: "alert" }, message) : null,
    el("p", {}, intro, " It stays in this browser tab and is sent only to this server."),
    el("form", { class: "token", onsubmit: (e) => {
      e.preventDefault();
      const token = input.value.trim();
      storeToken(TD_SCOPE, token);
      onToken(token);
    } }, el("label", { for: "token" }, "TD token ", input), el("button", { type: "submit", class: "primary" }, "Open")));
  input.focus();
}

/**
 * Who holds a TD page's ``token`` (GET /me): {holder} for a TD's, else {refused: why}
 * (an unknown or revoked token, or a seat's), the token forgotten in this tab.
 */
export async function tdHolder(token, what = "this page needs a TD token") {
  let me;
  try {
    me = await api("/me", { token });
  } catch (err) {
    storeToken(TD_SCOPE, null);
    return { refused: err.status === 401 ? "That token is unknown or revoked." : err.message };
  }
  if (me.role !== "td") {
    storeToken(TD_SCOPE, null);
    return { refused: `That is a seat token: ${what}.` };
  }
  return { holder: me };
}

/**
 * The games this server has (GET /games: name, title, player counts, options, seats,
 * verbs, rules page and table module), loaded once before any page runs. No page
 * lists the games itself.
 */
export const GAMES = await api("/games").catch(() => []);

export function gameTitle(game) {
  const found = GAMES.find((g) => g.name === game);
  return found ? found.title : game;
}

export function formatTime(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

/**
 * Follow a match's Server-Sent Events with a bearer token (EventSource cannot send one):
 * fetch the stream and parse it. Reconnects from the last id; returns a stop function.
 */
export function followEvents(matchId, { token = null, after = 0, onEvent, onState = () => {} }) {
  let stopped = false;
  let last = after;
  let controller = null;
  async function run() {
    while (!stopped) {
      controller = new AbortController();
      try {
        const headers = { Accept: "text/event-stream" };
        if (token) headers.Authorization = `Bearer ${token}`;
        const resp = await fetch(`/matches/${encodeURIComponent(matchId)}/stream?after=${last}`, { headers, signal: controller.signal });
        if (!resp.ok) throw new ApiError(resp.status, `live stream: ${resp.status}`);
        onState("live");
        const reader = resp.body.getReader();
        const decoder = new TextDecoder();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          let cut;
          while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, "");
            const msg = { data: [] };
            for (const line of block.split(/\r?\n/)) {
              if (line.startsWith(":")) continue;
              const i = line.indexOf(":");
              const field = i < 0 ? line : line.slice(0, i);
              const val = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
              if (field === "data") msg.data.push(val);
              else msg[field] = val;
            }
            if (msg.data.length) {
              const event = JSON.parse(msg.data.join("\n"));
              last = Math.max(last, event.position);
              onEvent(event);
            }
          }
        }
      } catch (err) {
        if (stopped) return;
        onState("reconnecting");
        if (err instanceof ApiError && err.status >= 400 && err.status < 500) {
          onState(`stopped: ${err.message}`);
          return;
        }
      }
      if (!stopped) await new Promise((r) => setTimeout(r, 1000));
    }
  }
  run();
  return () => {
    stopped = true;
    if (controller) controller.abort();
  };
}
