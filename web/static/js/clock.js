// A match's clocks (``state.clock``: the server's figures, as of ``as_of``): one chip per
// seat, the seat to act ticking down here from the figure the server gave, until the
// next figures arrive. The page never decides a flag fall: the server does, from the
// events' recorded times, and the page shows it when the ruling arrives.
import { el } from "./dom.js";

/** Remaining time as a clock shows it: "4:52", "1:02:03"; tenths under 10 seconds. */
export function clockFace(ms) {
  ms = Math.max(0, Math.floor(ms));
  if (ms < 10000) return `0:${String(Math.floor(ms / 1000)).padStart(2, "0")}.${Math.floor((ms % 1000) / 100)}`;
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

/** The clocks bar of one reading (``clock``), for ``players``, ``me`` marked; static (a replay) or ticking (``live``). */
export function clocksBar(clock, players, { me = null, live = false, id = "clocks" } = {}) {
  const bar = el("div", { class: "clocks", id, role: "group", "aria-label": `Clocks (${clock.control})` });
  const chips = [];
  for (const player of players) {
    const seat = clock.seats[player];
    if (!seat) continue;
    const time = el("span", { class: "clock-time" }, clockFace(seat.remaining_ms));
    const chip = el("span", {
      class: ["clock", seat.running ? "running" : "", player === me ? "mine" : "", seat.flags ? "flagged" : ""]
        .filter(Boolean).join(" "),
      dataset: { player },
      title: seat.flags ? `${player}: flag fell ${seat.flags}×` : player,
    }, el("span", { class: "clock-name" }, player), time, seat.running ? el("span", { class: "clock-run", "aria-hidden": "true" }, " ▶") : null);
    chips.push({ chip, time, seat });
    bar.append(chip);
  }
  bar.append(el("span", { class: "clock-control muted" }, clock.paused ? `${clock.control} · paused` : clock.control));
  if (!live || clock.paused) return { node: bar, stop: () => {} };
  const got = performance.now();
  const step = () => {
    const spent = performance.now() - got;
    for (const { chip, time, seat } of chips) {
      if (!seat.running) continue;
      const left = seat.remaining_ms - spent;
      time.textContent = clockFace(left);
      chip.classList.toggle("low", left < 10000);
    }
  };
  const timer = setInterval(step, 100);
  return { node: bar, stop: () => clearInterval(timer) };
}
