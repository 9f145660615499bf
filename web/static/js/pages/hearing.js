// The hearing room: a shared replay of a ruled deal. The TD leads (opened with
// #token=TD): steps, jumps to the ruling, switches seat views, opens a hypothetical from
// the moment shown and plays other moves in it, runs rollouts (drawn as a chart per
// player; each run a job of the server, followed with a progress bar and cancellable),
// proposes an adjusted score and decides. Followers open the TD's read-only
// link (#link=…) and see the same moment live (SSE); they cannot move.
import { api, el, errorBox, page, ruleLink, show, takeTokenFromFragment } from "../api.js";
import { facts, signed } from "../facts.js";
import { renderTable } from "../tables/index.js";

const { main, data } = page();
const ruling = `${encodeURIComponent(data.match)}/${encodeURIComponent(data.ruling)}`;
const base = `/hearings/${ruling}`;
const token = takeTokenFromFragment(`hearing:${data.match}/${data.ruling}`);
const link = new URLSearchParams(location.hash.slice(1)).get("link") || "";
const nodes = {};
let current = null;

function say(where, err) {
  where.replaceChildren(errorBox(err));
}

// The leader's changes run one after another, in the order clicked: two quick clicks on
// Back go back two steps (the second counts from where the first leads, not from the
// frame still on screen), and a hypothetical opens from the step the moves lead to.
let queue = Promise.resolve();
let aim = null; // { step, view } the queued moves lead to, while any is in flight

function lead(path, body) {
  const done = queue.then(async () => {
    nodes.message.replaceChildren();
    try {
      render(await api(`${base}${path}`, { token, method: "POST", body }));
    } catch (err) {
      say(nodes.message, err);
    }
  });
  queue = done;
  done.then(() => { if (queue === done) aim = null; });
  return done;
}

// `to` maps the moment the leader is heading for to the next one.
function move(to) {
  const from = aim || { step: current.step, view: current.view };
  aim = { ...from, ...to(from) };
  return lead("/moves", aim);
}

async function decide(decision, extra = {}) {
  const reason = nodes.reason.value.trim();
  try {
    const r = await api(`/audit/${ruling}/decide`, { token, method: "POST", body: { decision, reason, ...extra } });
    nodes.decided.textContent = `Decided: ${r.status}`;
  } catch (err) {
    say(nodes.decided, err);
  }
}

// --- the room: opened, shared and closed by the leader ----------------------------------------

// The followers' link as this page last opened it: the server keeps only its hash, so a
// link made elsewhere cannot be shown again (a new one replaces it).
let shared = null;

async function openRoom(expiresIn) {
  nodes.message.replaceChildren();
  try {
    const r = await api(`${base}${expiresIn ? `?expires_in=${expiresIn}` : ""}`, { token, method: "POST" });
    shared = new URL(r.url, location.origin).href;
    render(await api(base, { token }));
  } catch (err) {
    say(nodes.message, err);
  }
}

async function closeRoom() {
  nodes.message.replaceChildren();
  try {
    await api(`${base}/close`, { token, method: "POST" });
    shared = null;
    render(await api(base, { token }));
  } catch (err) {
    say(nodes.message, err);
  }
}

// "2026-12-01T09:41:56.995962Z" -> "2026-12-01 09:41 UTC"
const when = (iso) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

// the link expiry the leader chose last (the panel is drawn again on every change)
let expiryChoice = "";

function roomPanel(f) {
  const expiry = el("select", { id: "link-expiry", onchange: (ev) => { expiryChoice = ev.target.value; } },
    [["", "when I close the room"], ["7200", "in 2 hours"], ["86400", "in a day"], ["604800", "in a week"]]
      .map(([v, text]) => el("option", { value: v, selected: v === expiryChoice ? true : null }, text)));
  const opener = el("button", { type: "button", id: "room-open", onclick: () => openRoom(expiry.value) },
    f.open ? "Make a new link" : "Open the room");
  const until = el("label", {}, " The link stops working ", expiry, " ");
  if (!f.open) {
    return el("section", { id: "room", class: "room" },
      el("p", {}, "The room is closed. Open it to lead the hearing: you get a read-only link to share, "
        + "and whoever opens it follows your moves live (it shows every hand)."), until, opener);
  }
  const link = shared
    ? el("p", {}, el("label", {}, "Followers' link ",
      el("input", { id: "room-link", readonly: true, size: 70, value: shared, onfocus: (ev) => ev.target.select() })), " ",
      el("button", { type: "button", id: "room-copy", onclick: () => navigator.clipboard && navigator.clipboard.writeText(shared) }, "Copy"))
    : el("p", { class: "muted" }, "The room is open with a link made earlier (it is shown only when made): "
      + "make a new link to share it again; the old one then stops working.");
  return el("section", { id: "room", class: "room" },
    el("p", {}, el("strong", {}, "The room is open"), f.expires_at ? ` · link valid until ${when(f.expires_at)}` : " · the link works until you close the room"),
    link, until, opener, " ",
    el("button", { type: "button", id: "room-close", onclick: closeRoom }, "Close the room"));
}

// --- the leader's controls ------------------------------------------------------------------

function stepControls(f) {
  const views = ["all", ...f.players];
  return el("div", { class: "hearing-controls", id: "leader-controls" },
    el("button", { type: "button", id: "prev", onclick: () => move((m) => ({ step: Math.max(1, m.step - 1) })) }, "◀ Back"),
    el("button", { type: "button", id: "next", onclick: () => move((m) => ({ step: Math.min(f.of, m.step + 1) })) }, "Next ▶"),
    el("button", { type: "button", id: "to-ruling", onclick: () => move(() => ({ step: f.ruled_step })) }, "Jump to the ruling"),
    el("label", {}, " View ",
      el("select", { id: "view", onchange: (ev) => move(() => ({ view: ev.target.value })) },
        views.map((v) => el("option", { value: v, selected: v === f.view }, v === "all" ? "all hands" : `${v}'s view`)))),
    el("button", { type: "button", id: "branch", onclick: () => lead("/hypotheticals", { label: "" }) },
      `Open a hypothetical from step ${f.step}`));
}

async function play(hypo, player, command) {
  const [verb, ...args] = command.split(" ");
  nodes.message.replaceChildren();
  try {
    await api(`/hypotheticals/${encodeURIComponent(hypo)}/commands`, { token, method: "POST", body: { player, verb, args } });
    render(await api(base, { token }));
  } catch (err) {
    say(nodes.message, err);
  }
}

// --- rollout jobs: started, followed (progress bar, SSE) and cancelled -----------------------
// A run is a job of the server (POST answers 202 at once): the page follows its progress
// on the job's event stream, draws the chart when its result is recorded, and can cancel
// it. One run at a time per hypothetical: Run stays off while one runs, and the status
// counts the seconds, so a long run reads as working. The job survives a reload: the
// page asks the hypothetical for a running job and follows it again.
let job = null; // { hypo, id, n, done, status, started, stop } while a run is followed
let jobNote = null; // { hypo, text } how the last followed run ended, when not with a result
let jobTimer = null;
const jobsLooked = new Set(); // hypotheticals whose running job was looked for once

function jobText(j) {
  const s = Math.floor((Date.now() - j.started) / 1000);
  return `playing ${j.n} deals…${s ? ` ${s} s` : ""}`;
}

// Draws the run's state into the form on screen (it is drawn anew with every frame).
function drawJob() {
  const form = document.getElementById("rollout-form");
  if (!form) return;
  const run = form.querySelector("#rollout-run");
  const status = form.querySelector(".rollout-status");
  const box = form.querySelector(".rollout-job");
  const mine = job && form.dataset.hypo === job.hypo;
  run.disabled = Boolean(mine);
  if (!mine) {
    box.replaceChildren();
    if (jobNote && jobNote.hypo === form.dataset.hypo) status.textContent = jobNote.text;
    return;
  }
  status.textContent = jobText(job);
  if (!job.id) { box.replaceChildren(); return; } // the request is on its way
  let bar = box.querySelector("#rollout-progress");
  if (!bar) {
    bar = el("progress", { id: "rollout-progress", max: job.n, value: 0, "aria-label": "Rollouts played" });
    box.replaceChildren(bar, " ", el("span", { id: "rollout-count" }), " ",
      el("button", { type: "button", id: "rollout-cancel", onclick: () => cancelJob() }, "Cancel"));
  }
  bar.max = job.n;
  bar.value = job.done;
  box.querySelector("#rollout-count").textContent = `${job.done} of ${job.n} deals played`;
}

function stopFollowing(note) {
  if (job && job.stop) job.stop();
  jobNote = note ? { hypo: job.hypo, text: note } : null;
  job = null;
  clearInterval(jobTimer);
  jobTimer = null;
  drawJob();
}

async function ended(j, doc) {
  if (job !== j) return;
  if (doc.status === "done" || doc.n !== undefined) {  // the result is recorded: the chart shows it
    stopFollowing(null);
    try {
      render(await api(base, { token }));
    } catch (err) {
      say(nodes.message, err);
    }
    return;
  }
  const why = doc.reason ? ` (${doc.reason})` : "";
  stopFollowing(`${doc.status} after ${doc.done} of ${doc.total} deals: no result recorded${why}`);
}

// Follow the job's Server-Sent Events (fetched: EventSource cannot send the token);
// if the stream breaks off, ask for the job once a second instead.
function follow(j) {
  const controller = new AbortController();
  j.stop = () => controller.abort();
  const url = `/hypotheticals/${encodeURIComponent(j.hypo)}/rollouts/${encodeURIComponent(j.id)}`;
  async function stream() {
    const resp = await fetch(`${url}/stream`, { headers: { Accept: "text/event-stream", Authorization: `Bearer ${token}` }, signal: controller.signal });
    if (!resp.ok) throw new Error(`job stream: ${resp.status}`);
    const reader = resp.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, "");
        const msg = { event: "message", data: [] };
        for (const line of block.split(/\r?\n/)) {
          if (line.startsWith(":")) continue;
          const i = line.indexOf(":");
          const field = i < 0 ? line : line.slice(0, i);
          const val = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
          if (field === "data") msg.data.push(val);
          else msg[field] = val;
        }
        if (!msg.data.length || job !== j) continue;
        const data = JSON.parse(msg.data.join("\n"));
        if (msg.event === "progress") {
          j.done = data.done;
          drawJob();
        } else {
          await ended(j, data);
          return;
        }
      }
    }
  }
  async function poll() {
    while (job === j) {
      try {
        const doc = await api(url, { token });
        j.done = doc.done;
        drawJob();
        if (doc.status !== "running") return ended(j, doc.status === "done" ? doc.result : doc);
      } catch (err) {
        if (err.status === 401 || err.status === 403 || err.status === 404) return stopFollowing(err.message);
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  stream().catch(() => {}).then(() => { if (job === j) poll(); });
}

function startFollowing(hypo, doc, started = Date.now()) {
  if (job && job.stop) job.stop();
  job = { hypo, id: doc.job, n: doc.total, done: doc.done, started, stop: null };
  jobNote = null;
  clearInterval(jobTimer);
  jobTimer = setInterval(drawJob, 1000);
  drawJob();
  follow(job);
}

async function rollout(hypo, form) {
  const n = Number(form.querySelector("[name=n]").value);
  const hidden = form.querySelector("[name=hidden]").value;
  const started = Date.now();
  job = { hypo, id: null, n, done: 0, started, stop: null };  // the request is on its way
  jobNote = null;
  clearInterval(jobTimer);
  jobTimer = setInterval(drawJob, 1000);
  drawJob();
  try {
    const doc = await api(`/hypotheticals/${encodeURIComponent(hypo)}/rollouts`, { token, method: "POST", body: { n, hidden } });
    startFollowing(hypo, doc, started);
  } catch (err) {
    stopFollowing(null);
    const status = document.querySelector("#rollout-form .rollout-status");
    if (status) say(status, err);
    if (err.status === 409) resumeJob(hypo, true);  // one runs already (another tab?): follow it
  }
}

async function cancelJob() {
  if (!job || !job.id) return;
  const j = job;
  try {
    const doc = await api(`/hypotheticals/${encodeURIComponent(j.hypo)}/rollouts/${encodeURIComponent(j.id)}`, { token, method: "DELETE" });
    await ended(j, doc);
  } catch (err) {
    say(nodes.message, err);  // it ended first: its stream says how
  }
}

// A run of the hypothetical already going (the page reloaded, another tab started it).
async function resumeJob(hypo, again = false) {
  if (!token || (jobsLooked.has(hypo) && !again) || (job && job.hypo === hypo)) return;
  jobsLooked.add(hypo);
  try {
    const running = (await api(`/hypotheticals/${encodeURIComponent(hypo)}/rollouts`, { token }))
      .filter((j) => j.status === "running");
    if (running.length && !(job && job.hypo === hypo)) {
      const doc = running[running.length - 1];
      startFollowing(hypo, doc, Date.parse(doc.started_at) || Date.now());
    }
  } catch (err) {
    say(nodes.message, err);
  }
}

function hypoControls(h) {
  const players = Object.keys(h.legal);
  const plays = players.map((p) => {
    const choice = el("select", { id: `hypo-legal-${p}`, "aria-label": `${p}'s move` },
      h.legal[p].map((c) => el("option", { value: c }, c)));
    return el("div", { class: "hypo-play" }, el("strong", {}, p), " ", choice, " ",
      el("button", { type: "button", id: `hypo-play-${p}`, onclick: () => play(h.id, p, choice.value) }, "Play"));
  });
  const form = el("form", { class: "rollout", id: "rollout-form", dataset: { hypo: h.id },
    onsubmit: (ev) => { ev.preventDefault(); if (!(job && job.hypo === h.id)) rollout(h.id, form); } },
    el("label", {}, "Rollouts ", el("input", { name: "n", type: "number", min: 1, max: 10000, value: 200, size: 6 })),
    el("label", {}, " unseen cards ",
      el("select", { name: "hidden" }, el("option", { value: "actual" }, "as they were"),
        el("option", { value: "resample" }, "dealt afresh"))),
    " ", el("button", { type: "submit", id: "rollout-run" }, "Run"), " ",
    el("span", { class: "rollout-status", role: "status" }), " ",
    el("span", { class: "rollout-job" }));
  const nobody = !players.length && !h.settled
    ? el("p", { class: "muted" }, "No seat may move at this moment (the rules wait for a TD's ruling here): open the hypothetical from another step.")
    : null;
  return el("div", { id: "hypo-controls" }, plays, nobody, h.settled ? null : form,
    el("button", { type: "button", id: "unshow", onclick: () => lead("/show", { hypothetical: "" }) }, "Back to the deal"));
}

// --- the rollout chart (inline SVG, one histogram per player) --------------------------------

const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

function histogram(player, r) {
  const counts = new Map();
  for (const o of r.outcomes) counts.set(o.scores[player], (counts.get(o.scores[player]) || 0) + o.count);
  const scores = [...counts.keys()].sort((a, b) => a - b);
  const most = Math.max(...counts.values());
  const w = 26, h = 90, top = 14, width = Math.max(120, scores.length * w + 10);
  const s = r.players[player];
  const label = `${player}: mean ${s.mean.toFixed(2)}, p10 ${s.p10}, p50 ${s.p50}, p90 ${s.p90} over ${r.n} deals`;
  return el("figure", { class: "histogram", dataset: { player } },
    svg("svg", { width, height: h + top + 18, viewBox: `0 0 ${width} ${h + top + 18}`, role: "img", "aria-label": label },
      ...scores.flatMap((score, i) => {
        const c = counts.get(score), bar = Math.max(1, Math.round((c / most) * h));
        const x = 5 + i * w;
        return [
          svg("rect", { x, y: top + h - bar, width: w - 4, height: bar, class: score === s.p50 ? "bar median" : "bar" },
            svg("title", {}, `${score >= 0 ? "+" : ""}${score}: ${c} of ${r.n}`)),
          svg("text", { x: x + (w - 4) / 2, y: top + h + 13, "text-anchor": "middle", class: "tick" }, `${score >= 0 ? "+" : ""}${score}`),
          svg("text", { x: x + (w - 4) / 2, y: top + h - bar - 3, "text-anchor": "middle", class: "count" }, `${Math.round((100 * c) / r.n)}%`),
        ];
      })),
    el("figcaption", {}, label));
}

function chart(h) {
  if (!h.rollouts.length) return el("p", { class: "muted", id: "rollout-chart" }, "No rollouts yet.");
  const r = h.rollouts[h.rollouts.length - 1];
  return el("section", { id: "rollout-chart", "aria-label": "Rollout distribution" },
    el("h3", {}, `Deal score over ${r.n} rollouts (${r.bots} bots, unseen cards ${r.hidden === "actual" ? "as they were" : "dealt afresh"})`),
    el("div", { class: "histograms" }, Object.keys(r.players).map((p) => histogram(p, r))));
}

function hypoPanel(f) {
  const h = f.hypothetical;
  if (!h) return null;
  return el("section", { id: "hypothetical", "aria-label": "Hypothetical" },
    el("h2", { id: "hypo-title" }, `Hypothetical ${h.id} · from step ${h.step}`, h.label ? ` · ${h.label}` : ""),
    el("p", { id: "hypo-where" }, h.moves.length ? h.moves[h.moves.length - 1] : "No other move played yet.",
      h.settled ? el("strong", {}, " · settled") : null),
    // the latest move is above; every move, folded away, for who wants the whole line
    h.moves.length > 1 ? el("details", { id: "hypo-all-moves" }, el("summary", {}, `All ${h.moves.length} moves`),
      el("ol", { class: "hypo-moves" }, h.moves.map((m) => el("li", {}, m.replace(/^h[0-9]+\. /, ""))))) : null,
    token ? hypoControls(h) : null,
    renderTable(h.state),
    chart(h));
}

// Every hypothetical of the deal: the leader shows any of them again.
function hypoList(f) {
  if (!f.hypotheticals.length) return null;
  const shown = f.hypothetical ? f.hypothetical.id : "";
  return el("section", { id: "hypo-list", "aria-label": "Hypotheticals of this deal" },
    el("h2", {}, "Hypotheticals of this deal"),
    el("ul", {}, f.hypotheticals.map((h) => el("li", {},
      el("code", {}, h.hypothetical), ` from step ${h.step}`, h.label ? ` · ${h.label}` : "", " · ",
      h.settled ? `settled: ${signed(h.deal_scores)}` : "in play",
      h.last_rollout ? ` · ${h.last_rollout.n} rollouts` : "",
      h.hypothetical === shown ? el("strong", {}, " · shown") : token
        ? [" ", el("button", { type: "button", id: `hypo-show-${h.hypothetical}`,
          onclick: () => lead("/show", { hypothetical: h.hypothetical }) }, "Show")]
        : null))));
}

// --- the decision, with an adjusted score proposed from the hypotheticals -------------------

function proposal(f) {
  const h = f.hypothetical;
  const last = h && h.rollouts.length ? h.rollouts[h.rollouts.length - 1] : null;
  if (last) {  // the shown hypothetical's rollout means, rounded keeping their sum
    const exact = f.players.map((p) => last.players[p].mean);
    const floors = exact.map(Math.floor);
    let left = Math.round(exact.reduce((a, b) => a + b, 0)) - floors.reduce((a, b) => a + b, 0);
    const order = exact.map((x, i) => [x - floors[i], i]).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
    for (const [, i] of order) if (left-- > 0) floors[i] += 1;
    f.players.forEach((p, i) => { nodes.scores[p].value = floors[i]; });
    nodes.proposed.textContent = `From the rollouts of ${h.id} (means rounded, keeping their sum).`;
  } else {
    nodes.proposed.textContent = "Run rollouts in a hypothetical first, or type the scores.";
  }
}

function weightsList(f) {
  const settled = f.hypotheticals.filter((h) => h.settled);
  if (!settled.length) return el("p", { class: "muted" }, "No hypothetical of this deal is settled yet.");
  return el("div", {}, settled.map((h) => el("label", { class: "weight" },
    `${h.hypothetical}${h.label ? ` (${h.label})` : ""}: ${signed(h.deal_scores)} · weight `,
    el("input", { type: "number", min: 0, max: 1, step: 0.05, value: 0, size: 4, dataset: { hypo: h.hypothetical } }))));
}

function decisionPanel(f) {
  nodes.reason = el("input", { id: "decision-reason", size: 40 });
  nodes.decided = el("span", { id: "decision-result", role: "status" });
  // blank until proposed or typed: a click on "Adjust" must never award a default 0
  nodes.scores = Object.fromEntries(f.players.map((p) => [p, el("input", { type: "number", id: `adjust-${p}`, size: 4,
    step: 1, placeholder: "score" })]));
  nodes.proposed = el("span", { class: "muted", id: "proposed" });
  nodes.weights = el("div", { id: "adjust-weights" }, weightsList(f));
  nodes.weightIds = f.hypotheticals.map((h) => h.hypothetical + h.settled).join();
  const byScores = () => {
    const blank = f.players.filter((p) => nodes.scores[p].value.trim() === "");
    if (blank.length) {
      nodes.decided.textContent = `Type a score for ${blank.join(", ")} (or propose them from the rollouts) first.`;
      return;
    }
    decide("adjust", { adjust_scores: Object.fromEntries(f.players.map((p) => [p, Number(nodes.scores[p].value)])) });
  };
  const byWeights = () => {
    const adjust = {};
    for (const input of nodes.weights.querySelectorAll("input")) if (Number(input.value) > 0) adjust[input.dataset.hypo] = Number(input.value);
    decide("adjust", { adjust });
  };
  return el("section", { class: "decision", id: "decision" },
    el("h2", {}, "Decision"),
    el("label", {}, "Reason ", nodes.reason), " ",
    ["uphold", "overturn"].map((d) => el("button", { type: "button", id: `decide-${d}`, onclick: () => decide(d) }, d)),
    el("h3", {}, "Adjusted score"),
    el("p", {}, f.players.map((p) => el("label", { class: "score" }, `${p} `, nodes.scores[p], " ")),
      el("button", { type: "button", id: "propose", onclick: () => proposal(current) }, "Propose from the rollouts"), " ",
      el("button", { type: "button", id: "decide-adjust", onclick: byScores }, "Adjust to these scores"), " ", nodes.proposed),
    el("p", {}, "Or weigh settled hypotheticals (weights sum to 1):"), nodes.weights,
    el("button", { type: "button", id: "decide-weights", onclick: byWeights }, "Adjust by these weights"),
    el("p", {}, nodes.decided));
}

function commentForm(f) {
  const text = el("input", { id: "comment-text", size: 50, maxlength: 500, required: true,
    "aria-label": `Comment on step ${f.step} (event #${f.position})` });
  const form = el("form", { id: "comment", onsubmit: async (ev) => {
    ev.preventDefault();
    try {
      await api(`/audit/${ruling}/annotations`, { token, method: "POST", body: { event: f.position, text: text.value.trim() } });
      render(await api(base, { token }));
    } catch (err) {
      say(nodes.message, err);
    }
  } }, el("label", {}, `Comment on step ${f.step} `, text), " ", el("button", { type: "submit" }, "Add"));
  return form;
}

// --- the page -------------------------------------------------------------------------------

function render(f) {
  current = f;
  const r = f.ruling;
  if (!nodes.frame) {
    nodes.frame = el("div", { id: "frame" });
    nodes.message = el("div", { id: "message", "aria-live": "assertive" });
    show(main, el("h1", {}, `Hearing ${f.hearing}`), nodes.message, nodes.frame, token ? decisionPanel(f) : null);
  } else if (token && nodes.weightIds !== f.hypotheticals.map((h) => h.hypothetical + h.settled).join()) {
    nodes.weights.replaceChildren(weightsList(f));
    nodes.weightIds = f.hypotheticals.map((h) => h.hypothetical + h.settled).join();
  }
  // show() drops the parts this frame lacks (replaceChildren would print them as "null")
  show(nodes.frame,
    el("p", {}, "Ruling on ", el("strong", {}, r.player), " · ", ruleLink(r.rule, f.game), ` · ${r.status}`,
      !token && f.expires_at ? ` · link valid until ${when(f.expires_at)}` : ""),
    token ? roomPanel(f) : null,
    token ? (f.open ? stepControls(f) : null) : el("p", { class: "muted", id: "follower-note" }, "You follow the TD: the room moves with them."),
    el("p", { class: "now", id: "moment" },
      el("span", { class: "where", id: "where" }, `Step ${f.step}/${f.of} · ${f.view === "all" ? "all hands" : `${f.view}'s view`}`),
      f.step === f.ruled_step ? el("strong", { id: "at-ruling" }, " · the ruling") : null,
      el("br"), f.description),
    hypoPanel(f),
    hypoList(f),
    f.hypothetical ? el("h2", {}, "The deal as played") : null,
    renderTable(f.state),
    el("h2", {}, "Facts"),
    facts(r.facts),
    el("h2", {}, "Annotations"),
    token ? commentForm(f) : null,
    f.annotations.length
      ? el("ul", { id: "annotations" }, f.annotations.map((a) => el("li", {}, el("strong", {}, a.by), ` on #${a.position} (step ${a.step}): ${a.text}`)))
      : el("p", { class: "muted" }, "none"));
  drawJob();  // a run in progress keeps its bar across frames
  if (token && f.hypothetical && !f.hypothetical.settled) resumeJob(f.hypothetical.id);
}

function closed(text) {
  show(main, el("h1", {}, `Hearing ${data.match}/${data.ruling}`), el("p", { class: "error", role: "alert", id: "closed" }, text));
}

async function start() {
  const query = link ? `?link=${encodeURIComponent(link)}` : "";
  try {
    render(await api(`${base}${query}`, { token }));
  } catch (err) {
    if (err.status === 403 && link) return closed("This hearing link has expired or the TD has closed the hearing.");
    throw err;
  }
  if (!token) {
    const source = new EventSource(`${base}/stream${query}`);
    source.addEventListener("frame", (ev) => render(JSON.parse(ev.data)));
    source.addEventListener("closed", () => {
      source.close();
      closed("The TD has closed this hearing (or its link has expired).");
    });
  }
}

start().catch((err) => show(main, el("h1", {}, `Hearing ${data.match}/${data.ruling}`), errorBox(err)));
