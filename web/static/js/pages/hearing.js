// The hearing room: a shared replay of a ruled deal. The TD leads (opened with
// #token=TD): steps, jumps to the ruling, switches seat views, decides. Followers open
// the TD's read-only link (#link=…) and see the same moment live (SSE); they cannot move.
import { api, el, errorBox, page, ruleLink, show, takeTokenFromFragment } from "../api.js";
import { renderTable } from "../tables/index.js";

const { main, data } = page();
const base = `/hearings/${encodeURIComponent(data.match)}/${encodeURIComponent(data.ruling)}`;
const token = takeTokenFromFragment(`hearing:${data.match}/${data.ruling}`);
const link = new URLSearchParams(location.hash.slice(1)).get("link") || "";
let current = null;

async function move(step, view) {
  try {
    render(await api(`${base}/moves`, { token, method: "POST", body: { step, view } }));
  } catch (err) {
    main.append(errorBox(err));
  }
}

async function decide(decision) {
  const reason = main.querySelector("#decision-reason").value.trim();
  const body = { decision, reason };
  try {
    const r = await api(`/audit/${encodeURIComponent(data.match)}/${encodeURIComponent(data.ruling)}/decide`,
      { token, method: "POST", body });
    main.querySelector("#decision-result").textContent = `Decided: ${r.status}`;
  } catch (err) {
    main.querySelector("#decision-result").replaceChildren(errorBox(err));
  }
}

function controls(f) {
  if (!token) return el("p", { class: "muted", id: "follower-note" }, "You follow the TD: the room moves with them.");
  const views = ["all", ...f.players];
  return el("div", { class: "hearing-controls", id: "leader-controls" },
    el("button", { type: "button", id: "prev", onclick: () => move(Math.max(1, f.step - 1), f.view) }, "◀ Back"),
    el("button", { type: "button", id: "next", onclick: () => move(Math.min(f.of, f.step + 1), f.view) }, "Next ▶"),
    el("button", { type: "button", id: "to-ruling", onclick: () => move(f.ruled_step, f.view) }, "Jump to the ruling"),
    el("label", {}, " View ",
      el("select", { id: "view", onchange: (ev) => move(f.step, ev.target.value) },
        views.map((v) => el("option", { value: v, selected: v === f.view }, v === "all" ? "all hands" : `${v}'s view`)))),
    el("div", { class: "decision" },
      el("label", {}, "Reason ", el("input", { id: "decision-reason", size: 40 })),
      ["uphold", "overturn"].map((d) => el("button", { type: "button", id: `decide-${d}`, onclick: () => decide(d) }, d)),
      el("span", { id: "decision-result", role: "status" })));
}

function render(f) {
  current = f;
  const r = f.ruling;
  show(main,
    el("h1", {}, `Hearing ${f.hearing}`),
    el("p", {}, "Ruling on ", el("strong", {}, r.player), " · ", ruleLink(r.rule, f.game), ` · ${r.status}`),
    controls(f),
    el("p", { class: "now", id: "moment" },
      el("span", { class: "where", id: "where" }, `Step ${f.step}/${f.of} · ${f.view === "all" ? "all hands" : `${f.view}'s view`}`),
      f.step === f.ruled_step ? el("strong", { id: "at-ruling" }, " · the ruling") : null,
      el("br"), f.description),
    renderTable(f.state),
    el("h2", {}, "Facts"),
    el("dl", { class: "facts" }, Object.entries(r.facts || {}).flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, JSON.stringify(v))])),
    el("h2", {}, "Annotations"),
    f.annotations.length
      ? el("ul", { id: "annotations" }, f.annotations.map((a) => el("li", {}, el("strong", {}, a.by), ` on #${a.position} (step ${a.step}): ${a.text}`)))
      : el("p", { class: "muted" }, "none"));
}

async function start() {
  const query = link ? `?link=${encodeURIComponent(link)}` : "";
  render(await api(`${base}${query}`, { token }));
  if (!token) {
    const source = new EventSource(`${base}/stream${query}`);
    source.addEventListener("frame", (ev) => render(JSON.parse(ev.data)));
    source.addEventListener("closed", () => {
      source.close();
      show(main, el("h1", {}, `Hearing ${data.match}/${data.ruling}`),
        el("p", { class: "error", role: "alert", id: "closed" }, "The TD has closed this hearing."));
    });
  }
}

start().catch((err) => show(main, el("h1", {}, `Hearing ${data.match}/${data.ruling}`), errorBox(err)));
