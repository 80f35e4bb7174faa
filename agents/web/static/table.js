// Shengji web table: the page only shows and asks; the server checks every action.
"use strict";

const SEATS = ["North", "West", "South", "East"];
const TEAMS = ["North-South", "West-East"];
const SYMBOL = {S: "♠", H: "♥", C: "♣", D: "♦"};
let names = [];          // card id -> "S:A" (from the server's hello)
let ws = null;
let you = 2;
let lastView = null;
let lastLog = null;
let viewer = {frames: [], timeline: [], pos: 0, timer: null};

const $ = (id) => document.getElementById(id);
const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

function cardLabel(id) {
  const n = names[id] || "?";
  if (n === "BJ" || n === "LJ") return n === "BJ" ? "Big J" : "Small J";
  const [suit, rank] = n.split(":");
  return rank + SYMBOL[suit];
}
function cardEl(id, extra) {
  const n = names[id] || "";
  const red = n.startsWith("H:") || n.startsWith("D:") || n === "BJ";
  const c = el("span", "card" + (red ? " red" : "") + (extra ? " " + extra : ""), cardLabel(id));
  c.dataset.id = id;
  return c;
}
function cardsEl(ids, cls) {
  const box = el("span", cls || "cards");
  for (const id of ids) box.appendChild(cardEl(id));
  return box;
}
// position of seat s on the screen when `me` sits at the bottom (play order runs counter-clockwise)
function place(s, me) { return ["bottom", "right", "top", "left"][(s - me + 4) % 4]; }

// ------------------------------------------------------------------ connection
function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  ws = new WebSocket(`${proto}://${location.host}/ws`);
  ws.onopen = () => { $("status").textContent = "connected"; };
  ws.onclose = () => { $("status").textContent = "disconnected (reload to reconnect)"; };
  ws.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.type === "hello") { names = msg.card_names; addAgentNames(msg.agents); showAllowed(msg.allowed); }
    else if (msg.type === "state") showState(msg);
    else if (msg.type === "over") showOver(msg);
    else if (msg.type === "error") showError(msg.message);
  };
}
function send(obj) { $("error").textContent = ""; ws.send(JSON.stringify(obj)); }
function showError(text) { $("error").textContent = text; }
function showAllowed(a) {
  if (!a) return;
  $("allowed").textContent = `This server loads checkpoints from ${a.agent_dirs.join(", ") || "no folder"}` +
    (a.allow_import ? " and allows module:attr." : "; module:attr is off (--allow-import).");
}
function addAgentNames(list) {
  const dl = $("agent-names");
  const have = new Set([...dl.options].map((o) => o.value));
  for (const a of list) if (!have.has(a)) { const o = el("option"); o.value = a; dl.appendChild(o); }
}

// ------------------------------------------------------------------ play
function startGame() {
  you = Number($("seat").value);
  const rules = {};
  for (const part of $("rules").value.split(",")) {
    const [k, v] = part.split("=").map((x) => x && x.trim());
    if (!k) continue;
    rules[k] = v === "true" ? true : v === "false" ? false : (v !== "" && !isNaN(v)) ? Number(v) : v;
  }
  if ($("partnership").value !== "FIXED") rules.partnership = $("partnership").value;
  const seed = $("seed").value === "" ? null : Number($("seed").value);
  send({type: "new", seat: you, agents: [0, 1, 2, 3].map((i) => $("agent-" + i).value.trim()),
        decks: Number($("decks").value), episode: $("episode").value, seed, rules,
        delay: Number($("delay").value)});
  $("log").replaceChildren();
  $("result").hidden = true;
  $("game").hidden = false;
  $("setup").hidden = true;
}

// tricks won by the viewer's team (find-friends: side once known, else the viewer's own)
function tricksWon(v, me) {
  const w = v.tricks_won, n = v.tricks_done;
  if (me === null) return `tricks won ${SEATS.map((s, i) => s + " " + w[i]).join(", ")} of ${n}`;
  if (!v.find_friends) return `tricks won by your team ${w[me] + w[(me + 2) % 4]} of ${n}`;
  if (v.sides[me] && v.sides.every((x) => x)) {
    const mine = w.reduce((t, x, i) => t + (v.sides[i] === v.sides[me] ? x : 0), 0);
    return `tricks won by your side ${mine} of ${n}`;
  }
  return `tricks won by you ${w[me]} of ${n} (your side is not known yet)`;
}
function friendText(v, me) {
  if (!v.find_friends || v.friend_card < 0) return null;
  const seat = (s) => SEATS[s] + (s === me ? " (you)" : "");
  let t = `friend card: ${names[v.friend_card]}`;
  if (v.friend_revealed >= 0) t += ` · friend revealed: seat ${v.friend_revealed} (${seat(v.friend_revealed)})`;
  else if (v.friend !== null && v.friend !== undefined)
    t += v.friend < 0 ? " · the dealer plays alone" : ` · friend (not revealed): ${seat(v.friend)}`;
  else t += " · friend not revealed yet";
  return t;
}
function infoLine(v, me) {
  const seat = (s) => s < 0 ? "undecided" : SEATS[s] + (s === me ? " (you)" : "");
  const team = (t) => TEAMS[t] + (me !== null && me % 2 === t ? " (your team)" : "");
  const parts = [`trump ${v.trump_text}`, `level ${v.level}`, `dealer ${seat(v.dealer)}`];
  if (v.find_friends) {
    parts.push(`attackers' points ${v.attacker_points}`, tricksWon(v, me),
      "levels " + v.seat_levels.map((l, i) => `${seat(i)} ${l}`).join(", "));
    const f = friendText(v, me);
    if (f) parts.push(f);
  } else {
    parts.push(v.attackers < 0 ? "attackers undecided" : `attackers ${team(v.attackers)}: ${v.attacker_points} points`,
      tricksWon(v, me), `levels ${team(0)} ${v.team_levels[0]}, ${team(1)} ${v.team_levels[1]}`);
  }
  parts.push(`to act ${seat(v.to_act)}`, `${v.decks} deck${v.decks > 1 ? "s" : ""}`);
  if (v.phase === "DECLARE") parts.push(`dealt ${v.dealt}/${v.deal_total}`);
  if (v.declarer >= 0) parts.push(`${SEATS[v.declarer]} shows ${v.declared.map((c) => names[c]).join(" ")}`);
  return parts.join(" · ");
}

let updates = 0;  // states shown (the browser test waits for the next one)
function showState(msg) {
  const v = msg.view;
  $("game").dataset.updates = ++updates;
  lastView = v;
  you = msg.you;
  $("info").textContent = infoLine(v, you);
  for (let s = 0; s < 4; s++) {
    const pos = place(s, you);
    const box = $("box-" + pos);
    box.replaceChildren(el("b", null, SEATS[s] + (s === you ? " (you)" : "")),
                        el("span", "count", ` ${v.hand_sizes[s]} cards`));
    if (v.find_friends) {  // each seat's side as far as the table knows it
      const side = v.sides[s];
      box.appendChild(el("span", "side side-" + (side || "unknown"),
        side === "dealer" ? (s === v.dealer ? " dealer" : " dealer's friend") : side === "attacker" ? " attacker" : " side unknown"));
    }
    box.classList.toggle("acting", v.to_act === s);
    const slot = $("slot-" + pos);
    slot.replaceChildren();
    if (v.trick[s].length) slot.appendChild(cardsEl(v.trick[s]));
  }
  // a trick that just ended stays on the table until the next lead
  const cap = $("trick-caption");
  cap.textContent = "";
  if (v.in_trick === 0 && v.last_trick) {
    const t = v.last_trick;
    for (let s = 0; s < 4; s++) {
      const slot = $("slot-" + place(s, you));
      slot.replaceChildren(cardsEl(t.plays[s], "cards faded"));
    }
    cap.textContent = `trick ${t.number}: ${SEATS[t.winner]} wins ${t.points} points`;
  }
  showPrev(v.last_trick);
  showHand(v, msg.legal);
  showFriendPicker(v, msg.legal);
  for (const e of msg.events) {
    if (e.kind === "declare") {  // the declarations of one round of the deal share a line
      const what = e.text.split(" (after card")[0];
      const first = $("log").firstChild;
      if (first && first.dataset.round === String(e.data.round)) { first.textContent += "; " + what; continue; }
      const where = e.data.round ? `Deal round ${e.data.round}` : "After the deal";
      const li = el("li", "ev-declare", `${where}: ${what}`);
      li.dataset.round = String(e.data.round);
      $("log").prepend(li);
      continue;
    }
    $("log").prepend(el("li", "ev-" + e.kind, e.text));
  }
}

function showPrev(t) {
  const box = $("prev-trick");
  box.replaceChildren();
  if (!t) { box.appendChild(el("span", null, "no trick finished yet")); return; }
  box.appendChild(el("span", null, `Trick ${t.number}: `));
  for (let k = 0; k < 4; k++) {
    const s = (t.leader + k) % 4;
    box.appendChild(el("span", "who", SEATS[s]));
    box.appendChild(cardsEl(t.plays[s]));
  }
  box.appendChild(el("span", null, ` → ${SEATS[t.winner]} wins, ${t.points} points`));
}

function showHand(v, legal) {
  const hand = $("hand");
  hand.replaceChildren();
  const ok = new Set(legal ? legal.cards : []);
  for (const [label, ids] of v.hands[String(you)] || []) {
    const g = el("div", "group");
    g.appendChild(el("span", "suit", label === "trump" ? "trump" : SYMBOL[label]));
    for (const id of ids) {
      const c = cardEl(id, ok.has(id) ? "legal" : "");
      if (ok.has(id)) c.onclick = () => send({type: "act", action: id});
      g.appendChild(c);
    }
    hand.appendChild(g);
  }
  const sel = v.selection || [];
  $("selection").replaceChildren(...(sel.length ? [el("span", null, "selected: "), cardsEl(sel)] : []));
  const acts = $("actions");
  acts.replaceChildren();
  let prompt = legal ? "your turn" : "waiting for the others…";
  $("play").disabled = true;
  if (legal) {
    for (const a of legal.actions) {
      if (a.id === 55) { $("play").disabled = false; continue; }
      const b = el("button", "action", a.label);
      b.dataset.action = a.id;
      b.onclick = () => send({type: "act", action: a.id});
      acts.appendChild(b);
    }
    if (v.phase === "BURY") prompt = `bury: ${legal.needed} more card(s)`;
    else if (legal.needed !== null) prompt = `your play: ${legal.needed} more card(s)`;
    else if (legal.leading) prompt = sel.length ? "your lead: add cards or press Play" : "your lead: click cards";
    else if (v.phase === "DECLARE") prompt = "declare or pass";
    else if (v.phase === "FRIEND") prompt = "your call: name the friend card";
    else if (v.phase === "CHOOSE") prompt = "your choice: the unit the failed throw leads";
    if (v.picked_up) prompt += ` (you picked up ${v.picked_up.map((c) => names[c]).join(" ")})`;
  }
  $("undo").disabled = $("clear").disabled = !(legal && legal.pending.length);
  $("prompt").textContent = prompt;
}

// find-friends, the dealer after the bury: one button per card identity (§10.6)
function showFriendPicker(v, legal) {
  const box = $("friend-picker");
  const choices = legal && legal.friend_base !== null && legal.friend_base !== undefined ? legal.friend_cards : [];
  box.hidden = !choices.length;
  const cardsBox = $("friend-cards");
  cardsBox.replaceChildren();
  if (!choices.length) return;
  const held = new Map();
  for (const [, ids] of v.hands[String(you)] || []) for (const id of ids) held.set(id, (held.get(id) || 0) + 1);
  const rows = [["S", []], ["H", []], ["C", []], ["D", []], ["jokers", []]];
  for (const id of choices) rows[id >= 52 ? 4 : Math.floor(id / 13)][1].push(id);
  for (const [label, ids] of rows) {
    if (!ids.length) continue;
    const g = el("div", "group");
    g.appendChild(el("span", "suit", label === "jokers" ? "jokers" : SYMBOL[label]));
    for (const id of ids.slice().reverse()) {  // high to low
      const c = cardEl(id, "friend-card");
      if (held.get(id)) c.title = `you hold ${held.get(id)}`;
      if (held.get(id)) c.classList.add("held");
      c.onclick = () => send({type: "act", action: legal.friend_base + id});
      g.appendChild(c);
    }
    cardsBox.appendChild(g);
  }
}

function showOver(msg) {
  showState({...msg, legal: null, events: []});
  lastLog = msg.log;
  $("result").hidden = false;
  const who = msg.view.find_friends ? "side" : "team";
  const what = msg.episode === "match" ? " the match" : "";
  $("verdict").textContent = (msg.reward > 0 ? `Your ${who} wins${what}` : `Your ${who} loses${what}`) +
    ` (reward ${msg.reward > 0 ? "+" : ""}${msg.reward})` + (msg.saved ? ` — saved as ${msg.saved}` : "");
  const story = $("story");
  story.replaceChildren();
  for (const e of msg.story) story.appendChild(el("li", "ev-" + e.kind, e.text));
}

// ------------------------------------------------------------------ watch
async function loadFrames(promise) {
  $("w-error").textContent = "";
  const r = await promise;
  const body = await r.json();
  if (!r.ok) { $("w-error").textContent = body.error || "cannot load this game"; return; }
  names = body.card_names;
  viewer = {frames: body.frames, timeline: body.timeline, pos: 0, timer: null, agents: body.agents};
  $("viewer").hidden = false;
  const tl = $("timeline");
  tl.replaceChildren();
  for (const t of body.timeline) {
    const b = el("button", "trick-link", `${t.number}: ${SEATS[t.winner]} +${t.points}`);
    b.onclick = () => showFrame(t.frame);
    tl.appendChild(el("li")).appendChild(b);
  }
  showFrame(0);
}
function replayLog(log) {
  showTab("watch");
  return loadFrames(fetch("/api/replay", {method: "POST", body: JSON.stringify(log),
                                          headers: {"Content-Type": "application/json"}}));
}
function showFrame(i) {
  const n = viewer.frames.length;
  viewer.pos = Math.max(0, Math.min(n - 1, i));
  const f = viewer.frames[viewer.pos];
  const v = f.view;
  $("w-pos").textContent = `move ${viewer.pos} of ${n - 1}` + (f.seat >= 0 ? ` — ${SEATS[f.seat]}: ${f.action}` : "");
  $("w-info").textContent = infoLine(v, null);
  for (let s = 0; s < 4; s++) {
    const box = $("w-hand-" + s);
    box.replaceChildren(el("b", null, `${SEATS[s]} (${(viewer.agents || [])[s] || "?"})`));
    box.classList.toggle("acting", v.to_act === s);
    for (const [label, ids] of v.hands[String(s)] || []) {
      const g = el("span", "group");
      g.appendChild(el("span", "suit", label === "trump" ? "trump" : SYMBOL[label]));
      for (const id of ids) g.appendChild(cardEl(id));
      box.appendChild(g);
    }
  }
  const trick = $("w-trick");
  trick.replaceChildren();
  const plays = v.in_trick ? v.trick : (v.last_trick && f.events.some((e) => e.kind === "trick") ? v.last_trick.plays : null);
  if (plays) for (let s = 0; s < 4; s++) {
    if (!plays[s].length) continue;
    trick.appendChild(el("span", "who", SEATS[s]));
    trick.appendChild(cardsEl(plays[s]));
  }
  $("w-events").replaceChildren(...f.events.map((e) => el("p", "ev-" + e.kind, e.text)));
  for (const [k, li] of [...$("timeline").children].entries()) {
    li.classList.toggle("current", viewer.timeline[k].frame <= viewer.pos &&
      (k + 1 >= viewer.timeline.length || viewer.timeline[k + 1].frame > viewer.pos));
  }
}
function animate() {
  if (viewer.timer) { clearInterval(viewer.timer); viewer.timer = null; $("w-anim").textContent = "▶ animate"; return; }
  $("w-anim").textContent = "❚❚ pause";
  viewer.timer = setInterval(() => {
    if (viewer.pos >= viewer.frames.length - 1) { animate(); return; }
    showFrame(viewer.pos + 1);
  }, 600);
}
async function listSaved() {
  const r = await fetch("/api/games");
  const body = await r.json();
  const sel = $("saved");
  sel.replaceChildren(...body.games.map((g) => { const o = el("option", null, g); o.value = g; return o; }));
}

function showTab(which) {
  $("play-panel").hidden = which !== "play";
  $("watch-panel").hidden = which !== "watch";
  $("tab-play").classList.toggle("active", which === "play");
  $("tab-watch").classList.toggle("active", which === "watch");
  if (which === "watch") listSaved();
}

window.addEventListener("DOMContentLoaded", () => {
  $("start").onclick = startGame;
  $("play").onclick = () => send({type: "act", action: 55});
  $("undo").onclick = () => send({type: "undo"});
  $("clear").onclick = () => send({type: "clear"});
  $("prev-toggle").onclick = () => { $("prev-trick").hidden = !$("prev-trick").hidden; };
  $("again").onclick = () => { $("result").hidden = true; $("game").hidden = true; $("setup").hidden = false; };
  $("replay-this").onclick = () => replayLog(lastLog);
  $("download-log").onclick = () => {
    const a = el("a");
    a.href = URL.createObjectURL(new Blob([JSON.stringify(lastLog)], {type: "application/json"}));
    a.download = "shengji-game.json";
    a.click();
  };
  $("tab-play").onclick = () => showTab("play");
  $("tab-watch").onclick = () => showTab("watch");
  $("load-saved").onclick = () => $("saved").value &&
    loadFrames(fetch("/api/games/" + encodeURIComponent($("saved").value)));
  $("upload").onchange = async () => {
    const f = $("upload").files[0];
    if (f) loadFrames(fetch("/api/replay", {method: "POST", body: await f.text()}));
  };
  $("w-first").onclick = () => showFrame(0);
  $("w-prev").onclick = () => showFrame(viewer.pos - 1);
  $("w-next").onclick = () => showFrame(viewer.pos + 1);
  $("w-last").onclick = () => showFrame(viewer.frames.length - 1);
  $("w-anim").onclick = animate;
  connect();
});
