// A TD creates a match (POST /matches): the game, its players in seat order, the game's
// options, and optionally a seed, a series and whether the table deals by itself; then
// hands out the seats: each player's link to their own table, holding their secret seat
// token in the URL fragment (never sent to a server), to copy or open. The TD token, as
// on the TD page, arrives as #token=… and stays in this tab.
import {
  api, askForTdToken, el, errorBox, GAMES, page, show, storeToken, takeTokenFromFragment, TD_SCOPE, tdHolder,
} from "../api.js";
import { anchorOf } from "../terms.js";

const { main } = page();
let token = takeTokenFromFragment(TD_SCOPE); // the TD page's token: one TD token per tab serves both pages

function askForToken(message) {
  askForTdToken(main, { title: "New match", message,
    intro: ["Creating a match needs a TD token (", el("code", {}, "kartludo token new --role td"), ")."],
    onToken: (typed) => { token = typed; start(); } });
}

/** An option's default as it is typed: a list as "S,H,D,C". */
const typed = (v) => (Array.isArray(v) ? v.join(",") : v === null || v === undefined ? "" : String(v));

function form(initial = {}) {
  const game = el("select", { id: "game", name: "game", required: true },
    GAMES.map((g) => el("option", { value: g.name, selected: g.name === initial.game }, g.title)));
  const count = el("select", { id: "count", name: "count" });
  const seats = el("ol", { class: "seat-inputs", id: "seats" });
  const options = el("div", { class: "options", id: "options" });
  const seed = el("input", { type: "text", id: "seed", name: "seed", inputmode: "numeric", pattern: "[0-9]{1,19}", size: 22,
    "aria-describedby": "seed-help" });
  const series = el("input", { type: "text", id: "series", name: "series", size: 22, "aria-describedby": "series-help",
    pattern: "[A-Za-z0-9_.\\-]{1,100}" });
  const autoDeal = el("input", { type: "checkbox", id: "auto-deal", name: "auto_deal", checked: true });
  const watchDelay = el("input", { type: "text", id: "watch-delay", name: "watch_delay", size: 8, autocomplete: "off",
    "aria-describedby": "watch-delay-help" });
  const watchHands = el("input", { type: "checkbox", id: "watch-hands", name: "watch_hands" });
  const clock = el("input", { type: "text", id: "clock", name: "clock", size: 10, autocomplete: "off", placeholder: "5m+10s",
    "aria-describedby": "clock-help" });
  const moveLimit = el("input", { type: "text", id: "move-limit", name: "move_limit", size: 8, autocomplete: "off",
    placeholder: "60s", "aria-describedby": "clock-help" });
  const onFlag = el("select", { id: "on-flag", name: "on_flag", "aria-describedby": "clock-help" },
    el("option", { value: "bot", selected: true }, "the bot plays the turn"),
    el("option", { value: "bot-penalty" }, "the bot plays the turn, and the seat pays the time penalty"));
  const message = el("div", { id: "message", "aria-live": "assertive" });
  const submit = el("button", { type: "submit", class: "primary", id: "create" }, "Create the match");
  const names = initial.players || [];

  const clockRules = el("a", { id: "clock-rules" }, "§Clocks");
  const current = () => GAMES.find((g) => g.name === game.value) || GAMES[0];
  function drawSeats() {
    const g = current();
    const n = Number(count.value) || Math.max(...g.player_counts);
    const kept = [...seats.querySelectorAll("input")].map((i) => i.value);
    seats.replaceChildren(...Array.from({ length: n }, (_, i) => {
      const id = `player-${i}`;
      return el("li", {}, el("label", { for: id }, `Seat ${g.seats[i] || i + 1} `),
        el("input", { type: "text", id, name: "player", required: !series.value.trim(), maxlength: 40, autocomplete: "off",
          pattern: "[A-Za-z0-9][A-Za-z0-9_.\\-]{0,39}", value: kept[i] ?? names[i] ?? "",
          placeholder: "name" }));
    }));
  }
  function drawGame() {
    const g = current();
    clockRules.href = `/ui/rules/${encodeURIComponent(g.name)}#${anchorOf("Clocks")}`;
    count.replaceChildren(...g.player_counts.map((n) => el("option", { value: n, selected: n === Math.max(...g.player_counts) }, `${n} players`)));
    count.disabled = g.player_counts.length === 1;
    drawSeats();
    options.replaceChildren(...Object.entries(g.options).map(([key, opt]) => {
      const id = `option-${key}`;
      return el("p", { class: "option" }, el("label", { for: id }, `${key.replaceAll("_", " ")} `),
        el("input", { type: "text", id, name: key, "data-option": key, placeholder: typed(opt.default), size: 14,
          "aria-describedby": `${id}-help` }),
        el("span", { class: "muted", id: `${id}-help` }, ` ${opt.help} (empty: the default)`));
    }));
    if (!options.children.length) options.append(el("p", { class: "muted" }, `${g.title} has no options.`));
  }
  game.addEventListener("change", drawGame);
  // a series' match takes its players from the series (seats rotating): the names may be left out
  series.addEventListener("input", () => {
    for (const i of seats.querySelectorAll("input")) i.required = !series.value.trim();
  });
  count.addEventListener("change", drawSeats);
  drawGame();

  const commandId = crypto.randomUUID(); // a retried submission creates this one match, no other
  const node = el("form", { id: "new-match", class: "new-match", onsubmit: async (e) => {
    e.preventDefault();
    message.replaceChildren();
    const players = [...seats.querySelectorAll("input")].map((i) => i.value.trim());
    const body = {
      game: game.value,
      ...(players.some(Boolean) || !series.value.trim() ? { players } : {}),
      options: Object.fromEntries([...options.querySelectorAll("input[data-option]")]
        .filter((i) => i.value.trim()).map((i) => [i.dataset.option, i.value.trim()])),
      auto_deal: autoDeal.checked,
      command_id: commandId,
    };
    if (seed.value.trim()) body.seed = Number(seed.value.trim());
    if (series.value.trim()) body.series = series.value.trim();
    if (watchDelay.value.trim()) body.watch_delay = watchDelay.value.trim();
    if (watchHands.checked) body.watch_hands = true;
    if (clock.value.trim()) body.clock = clock.value.trim();
    if (moveLimit.value.trim()) body.move_limit = moveLimit.value.trim();
    if (body.clock || body.move_limit) body.on_flag = onFlag.value;
    submit.disabled = true;
    try {
      const created = await api("/matches", { token, method: "POST", body });
      handOut(created, body);
    } catch (err) {
      message.replaceChildren(errorBox(err));
      submit.disabled = false;
    }
  } },
  el("p", {}, el("label", { for: "game" }, "Game "), game, " ", el("label", { for: "count", class: "visually-hidden" }, "Players"), count),
  el("fieldset", {}, el("legend", {}, "Players, in seat order"), seats),
  el("fieldset", {}, el("legend", {}, "Options"), options),
  el("fieldset", {}, el("legend", {}, "Table"),
    el("p", {}, el("label", { for: "auto-deal" }, autoDeal, " The table deals by itself: the first deal at once, then each next deal when one ends"),
      el("br"), el("span", { class: "muted" }, "Off: a TD deals each deal from the TD page (e.g. to enter a physical deck).")),
    el("p", {}, el("label", { for: "series" }, "Series "), series, " ",
      el("span", { class: "muted", id: "series-help" }, "optional: a series id (", el("a", { href: "/ui/series" }, "series"),
        "); its players then take the seats")),
    el("p", {}, el("label", { for: "clock" }, "Clock "), clock, " ", el("label", { for: "move-limit" }, "a turn at most "),
      moveLimit, " ", el("label", { for: "on-flag" }, "on a flag fall "), onFlag, el("br"),
      el("span", { class: "muted", id: "clock-help" }, "optional: base per seat plus an increment per turn (5m+10s), "
        + "and/or a limit on each turn (60s); the time penalty of each game is in its rules' ",
        clockRules)),
    el("p", {}, el("label", { for: "watch-delay" }, "Watch delay "), watchDelay, " ",
      el("label", { for: "watch-hands" }, watchHands, " every hand"), " ",
      el("span", { class: "muted", id: "watch-delay-help" }, "optional: the public watch link shows the table this far "
        + "behind, 2 (moves) or 30s (seconds); every hand only with a delay")),
    el("p", {}, el("label", { for: "seed" }, "Seed "), seed, " ",
      el("span", { class: "muted", id: "seed-help" }, "optional, for reproducible or duplicate play only: without one each deal is "
        + "shuffled afresh; a seed is a TD's secret until the match ends"))),
  el("p", {}, submit), message);
  return node;
}

/** Copy ``text`` to the clipboard (or select it in its field, for the reader to copy). */
async function copy(input, button) {
  try {
    await navigator.clipboard.writeText(input.value);
    button.textContent = "Copied";
  } catch {
    input.select();
    button.textContent = "Selected: copy it";
  }
  setTimeout(() => { button.textContent = "Copy"; }, 2500);
}

function handOut(created, body) {
  const mid = created.match;
  const base = `${location.origin}/ui/table/${encodeURIComponent(mid)}`;
  const game = GAMES.find((g) => g.name === body.game);
  const rows = created.players.map((player, i) => {
    const link = `${base}#token=${created.tokens[player]}`;
    const input = el("input", { type: "text", readonly: true, value: link, size: 60, id: `link-${i}`,
      "aria-label": `${player}'s seat link`, onfocus: (e) => e.target.select() });
    const button = el("button", { type: "button", "data-copy": player, onclick: () => copy(input, button) }, "Copy");
    return el("li", { dataset: { player } }, el("strong", {}, player),
      ` (seat ${(game && game.seats[i]) || i + 1}) `, input, " ", button, " ",
      el("a", { href: link, target: "_blank", rel: "noopener", "data-open": player }, "open"));
  });
  show(main,
    el("h1", {}, `Match ${mid} created`),
    el("p", { class: "note" }, "Hand each player their own link: it holds their secret seat token, shown only here ",
      "(creating the same match again revokes these and makes new ones). A link opens that player's table, ",
      body.auto_deal ? "where the first deal is already on." : "once a TD deals from the TD page."),
    el("ol", { class: "seat-links", id: "seat-links" }, rows),
    el("p", {}, "Watch link for anyone (no token", body.watch_delay ? `; delayed by ${body.watch_delay}` : "", "): ",
      el("a", { href: `/ui/watch/${encodeURIComponent(mid)}`, id: "watch-link" }, `${location.origin}/ui/watch/${mid}`)),
    el("p", {}, el("a", { href: `/ui/td/${encodeURIComponent(mid)}`, class: "button", id: "td-link" }, "TD page"), " ",
      el("a", { href: `/ui/replay/${encodeURIComponent(mid)}`, class: "button" }, "Replay"), " ",
      el("a", { href: "/ui/new", class: "button", id: "another", onclick: (e) => { e.preventDefault(); start(body); } },
        "Create another")));
  const first = main.querySelector("#seat-links button");
  if (first) first.focus();
}

async function start(initial = {}) {
  if (!token) {
    askForToken(null);
    return;
  }
  const { holder: me, refused } = await tdHolder(token, "creating a match needs a TD token");
  if (refused) {
    token = null;
    askForToken(refused);
    return;
  }
  show(main, el("h1", {}, "New match"),
    el("p", { class: "muted" }, `As TD ${me.label || "td"}. `,
      el("button", { type: "button", onclick: () => { storeToken(TD_SCOPE, null); token = null; start(); } }, "Forget token")),
    form(initial));
  main.querySelector("#player-0").focus();
}

start().catch((err) => show(main, el("h1", {}, "New match"), errorBox(err)));
