// MAID web client: plain JavaScript, no build step.
// Talks JSON over one WebSocket (see maid_engine/web/server.py for the messages),
// renders ANSI colour, keeps scrollback and input history, and fills the side panels
// from GMCP.
"use strict";

(function () {
  const MAX_LINES = 5000; // scrollback kept in the page
  const MAX_HISTORY = 200;
  const RETRY_FIRST = 1000; // ms; doubles each failed attempt
  const RETRY_MAX = 30000;
  const RETRY_ATTEMPTS = 12;
  const STABLE_AFTER = 10000; // a connection this old resets the back-off

  const $ = (id) => document.getElementById(id);
  const output = $("output");
  const command = $("command");
  const form = $("input-form");
  const statusLine = $("status");

  // ---------------------------------------------------------------- ANSI colour

  // A dark page: "black" text (the game's |x, meant as a quiet grey) must stay readable.
  const BASIC = [
    "#6e7681", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
    "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff",
  ];

  function xterm256(n) {
    if (n < 16) return BASIC[n];
    if (n < 232) {
      const i = n - 16;
      const level = (v) => (v === 0 ? 0 : 55 + v * 40);
      return rgb(level(Math.floor(i / 36)), level(Math.floor(i / 6) % 6), level(i % 6));
    }
    const grey = 8 + (n - 232) * 10;
    return rgb(grey, grey, grey);
  }

  function rgb(r, g, b) {
    const hex = (v) => Math.max(0, Math.min(255, v | 0)).toString(16).padStart(2, "0");
    return "#" + hex(r) + hex(g) + hex(b);
  }

  const style = { fg: null, bg: null, bold: false, underline: false };

  function resetStyle() {
    style.fg = null; style.bg = null; style.bold = false; style.underline = false;
  }

  function applySgr(params) {
    const codes = params === "" ? [0] : params.split(";").map((p) => parseInt(p || "0", 10));
    for (let i = 0; i < codes.length; i++) {
      const c = codes[i];
      if (c === 0) resetStyle();
      else if (c === 1) style.bold = true;
      else if (c === 22) style.bold = false;
      else if (c === 4) style.underline = true;
      else if (c === 24) style.underline = false;
      else if (c >= 30 && c <= 37) style.fg = BASIC[c - 30];
      else if (c >= 90 && c <= 97) style.fg = BASIC[c - 90 + 8];
      else if (c >= 40 && c <= 47) style.bg = BASIC[c - 40];
      else if (c >= 100 && c <= 107) style.bg = BASIC[c - 100 + 8];
      else if (c === 39) style.fg = null;
      else if (c === 49) style.bg = null;
      else if (c === 38 || c === 48) {
        let colour = null;
        if (codes[i + 1] === 5 && i + 2 < codes.length) {
          colour = xterm256(codes[i + 2]);
          i += 2;
        } else if (codes[i + 1] === 2 && i + 4 < codes.length) {
          colour = rgb(codes[i + 2], codes[i + 3], codes[i + 4]);
          i += 4;
        }
        if (colour !== null) {
          if (c === 38) style.fg = colour; else style.bg = colour;
        }
      }
    }
  }

  function styledSpan(text) {
    const span = document.createElement("span");
    span.textContent = text;
    if (style.fg) span.style.color = style.fg;
    if (style.bg) span.style.backgroundColor = style.bg;
    if (style.bold) span.style.fontWeight = "bold";
    if (style.underline) span.style.textDecoration = "underline";
    return span;
  }

  // ESC [ params m (colour); any other escape sequence is dropped.
  const ESCAPE = /\x1b\[([0-9;]*)([A-Za-z])/g;

  function renderAnsi(text) {
    const fragment = document.createDocumentFragment();
    let last = 0;
    for (const m of text.matchAll(ESCAPE)) {
      if (m.index > last) fragment.appendChild(styledSpan(text.slice(last, m.index)));
      if (m[2] === "m") applySgr(m[1]);
      last = m.index + m[0].length;
    }
    if (last < text.length) fragment.appendChild(styledSpan(text.slice(last)));
    return fragment;
  }

  // ---------------------------------------------------------------- output

  function atBottom() {
    return output.scrollHeight - output.scrollTop - output.clientHeight < 40;
  }

  function trimScrollback() {
    let extra = output.childElementCount - MAX_LINES;
    while (extra-- > 0) output.removeChild(output.firstChild);
  }

  // The log is kept as one element per line, so scrollback is trimmed by lines and a
  // screen reader hears each new line once.
  let openLine = null;

  function appendText(text, className) {
    const follow = atBottom();
    const parts = text.split("\n");
    parts.forEach((part, index) => {
      if (openLine === null) {
        openLine = document.createElement("div");
        if (className) openLine.className = className;
        output.appendChild(openLine);
      }
      if (part) openLine.appendChild(renderAnsi(part));
      if (index < parts.length - 1) {
        if (!openLine.firstChild) openLine.appendChild(document.createTextNode("\u00a0"));
        openLine = null;
      }
    });
    trimScrollback();
    if (follow) output.scrollTop = output.scrollHeight;
  }

  function appendEcho(text) {
    const follow = atBottom();
    if (openLine === null) {
      openLine = document.createElement("div");
      output.appendChild(openLine);
    }
    const span = document.createElement("span");
    span.className = "echo";
    span.textContent = text;
    openLine.appendChild(span);
    if (!openLine.textContent) openLine.appendChild(document.createTextNode("\u00a0"));
    openLine = null;
    trimScrollback();
    if (follow) output.scrollTop = output.scrollHeight;
  }

  function notice(text) {
    if (openLine !== null) openLine = null;
    resetStyle();
    appendText(text + "\n", "notice");
  }

  // ---------------------------------------------------------------- connection

  let socket = null;
  let attempts = 0;
  let retryTimer = null;
  let openedAt = 0;
  let userQuit = false;
  let everConnected = false;

  function setStatus(text, down) {
    statusLine.textContent = text;
    statusLine.classList.toggle("down", Boolean(down));
  }

  function columns() {
    const probe = document.createElement("span");
    probe.textContent = "MMMMMMMMMM";
    probe.style.visibility = "hidden";
    output.appendChild(probe);
    const width = probe.getBoundingClientRect().width / 10 || 8;
    output.removeChild(probe);
    const box = getComputedStyle(output);
    const usable = output.clientWidth - parseFloat(box.paddingLeft) - parseFloat(box.paddingRight);
    // Two columns to spare: the server wraps to this width, and a line the page then
    // wrapped again would leave one word alone on a line.
    return Math.max(20, Math.min(250, Math.floor(usable / width) - 2));
  }

  function rows() {
    return Math.max(10, Math.min(200, Math.floor(output.clientHeight / 19)));
  }

  function connect() {
    if (retryTimer !== null) { clearTimeout(retryTimer); retryTimer = null; }
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const url = `${scheme}//${location.host}/ws?cols=${columns()}&rows=${rows()}`;
    setStatus("Connecting…");
    userQuit = false;
    socket = new WebSocket(url);
    socket.addEventListener("open", () => {
      openedAt = Date.now();
      if (everConnected) notice("Reconnected.");
      everConnected = true;
      setStatus("Connected");
      send({ size: [columns(), rows()] });
      send({ gmcp: "Core.Hello", data: { client: "MAID web", version: "1" } });
    });
    socket.addEventListener("message", (event) => receive(event.data));
    socket.addEventListener("close", closed);
  }

  function closed() {
    socket = null;
    setPassword(false);
    if (openedAt && Date.now() - openedAt > STABLE_AFTER) attempts = 0;
    openedAt = 0;
    if (userQuit) {
      setStatus("Disconnected", true);
      notice("Disconnected. Press Enter to connect again.");
      return;
    }
    if (attempts >= RETRY_ATTEMPTS) {
      setStatus("Disconnected", true);
      notice("Could not reconnect. Press Enter to try again.");
      return;
    }
    const base = Math.min(RETRY_MAX, RETRY_FIRST * 2 ** attempts);
    const delay = base / 2 + Math.random() * (base / 2);
    attempts += 1;
    const seconds = Math.max(1, Math.round(delay / 1000));
    setStatus(`Disconnected; reconnecting in ${seconds} s (Enter: now)`, true);
    if (attempts === 1) notice("Connection lost; reconnecting…");
    retryTimer = setTimeout(connect, delay);
  }

  function send(message) {
    if (socket !== null && socket.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  function receive(data) {
    let message;
    try {
      message = JSON.parse(data);
    } catch (err) {
      return; // the server only sends JSON objects
    }
    if (typeof message.text === "string") appendText(message.text);
    if (typeof message.echo === "boolean") setPassword(!message.echo);
    if (typeof message.gmcp === "string") gmcp(message.gmcp, message.data);
  }

  // ---------------------------------------------------------------- input

  // The login screen's one-line forms carry a password: neither shown nor remembered.
  const LOGIN_LINE = /^(\s*(?:create|connect)\s+\S+)\s+\S.*$/i;
  const history = [];
  let historyAt = 0;
  let draft = "";
  let password = false;

  function setPassword(on) {
    password = on;
    command.type = on ? "password" : "text";
    command.setAttribute("aria-label", on ? "Password (hidden)" : "Command");
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const line = command.value;
    command.value = "";
    if (socket === null) {
      attempts = 0;
      connect();
      return;
    }
    sendLine(line);
  });

  // A line from the command line or a panel's button: sent, shown, remembered.
  function sendLine(line) {
    if (!send({ line })) return;
    resetStyle();
    const secret = password || LOGIN_LINE.test(line);
    // What was typed goes after the prompt, on its line, as a terminal shows it.
    appendEcho(password ? "" : line.replace(LOGIN_LINE, "$1 ********"));
    if (!secret && line.trim() !== "") {
      if (history[history.length - 1] !== line) history.push(line);
      if (history.length > MAX_HISTORY) history.shift();
      const word = line.trim().toLowerCase();
      if (word === "quit" || word === "logout") userQuit = true;
    }
    historyAt = history.length;
    draft = "";
  }

  command.addEventListener("keydown", (event) => {
    if (event.key === "ArrowUp" && !password) {
      if (historyAt === history.length) draft = command.value;
      if (historyAt > 0) {
        historyAt -= 1;
        command.value = history[historyAt];
      }
      event.preventDefault();
    } else if (event.key === "ArrowDown" && !password) {
      if (historyAt < history.length) {
        historyAt += 1;
        command.value = historyAt === history.length ? draft : history[historyAt];
      }
      event.preventDefault();
    } else if (event.key === "PageUp" || event.key === "PageDown") {
      const step = output.clientHeight * 0.9;
      output.scrollTop += event.key === "PageUp" ? -step : step;
      event.preventDefault();
    }
  });

  // The command line keeps the focus: typing anywhere else goes there, and clicking the
  // text (without selecting any to copy) gives it back.
  const PANELS = ["vitals-panel", "room-panel", "state-panel", "quests-panel", "map-panel"];
  document.addEventListener("keydown", (event) => {
    if (event.altKey && /^[1-5]$/.test(event.key)) {
      $(PANELS[Number(event.key) - 1]).focus();
      event.preventDefault();
      return;
    }
    if (event.key === "Escape") {
      command.focus();
      return;
    }
    const target = event.target;
    const typing = target === command || target.tagName === "A" || target.tagName === "BUTTON";
    if (!typing && event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey) {
      command.focus();
    }
  });
  output.addEventListener("mouseup", () => {
    const selection = window.getSelection();
    if (!selection || selection.isCollapsed) command.focus();
  });

  // Whether the view follows new text: true unless the player scrolled up to read.
  let following = true;
  output.addEventListener("scroll", () => { following = atBottom(); });

  let resizeTimer = null;
  window.addEventListener("resize", () => {
    if (following) output.scrollTop = output.scrollHeight;
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => send({ size: [columns(), rows()] }), 250);
  });

  // ---------------------------------------------------------------- panels

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.appendChild(typeof child === "string" || typeof child === "number"
        ? document.createTextNode(String(child)) : child);
    }
    return node;
  }

  function fill(id, ...children) {
    const box = $(id);
    box.replaceChildren(...children.filter((c) => c !== null && c !== undefined));
  }

  function empty(text) {
    return el("p", { class: "empty" }, text);
  }

  function bar(kind, label, value, max) {
    const share = max > 0 ? Math.max(0, Math.min(100, (value / max) * 100)) : 0;
    const fillNode = el("div", { class: "fill" });
    fillNode.style.width = share.toFixed(1) + "%";
    return el("div", { class: "bar " + kind },
      el("div", { class: "label" }, el("span", {}, label), el("span", {}, `${value} / ${max}`)),
      el("div", {
        class: "track", role: "meter", "aria-label": label, "aria-valuemin": 0,
        "aria-valuemax": max, "aria-valuenow": value,
      }, fillNode));
  }

  const panel = { vitals: null, status: null, name: null };

  function drawVitals() {
    const parts = [];
    if (panel.name) parts.push(el("p", {}, el("strong", {}, panel.name)));
    const v = panel.vitals;
    if (v) {
      parts.push(bar("hp", "Health", v.hp, v.maxhp));
      if (v.maxmp) parts.push(bar("mp", "Mana", v.mp, v.maxmp));
    }
    const s = panel.status;
    if (s) {
      if (s.xp_next_level) parts.push(bar("xp", `Level ${s.level}`, s.xp, s.xp_next_level));
      else parts.push(el("p", {}, `Level ${s.level}`));
      parts.push(el("p", {}, `Gold: ${s.gold}`));
    }
    fill("vitals", ...(parts.length ? parts : [empty("Not playing yet.")]));
  }

  function names(list) {
    return (list || []).map((p) => p.name).filter(Boolean);
  }

  let roomInfo = null;

  // Exits as buttons: a newcomer can walk without knowing the commands, by mouse or
  // by Tab and Enter; the command line gets the focus back afterwards.
  function exitButtons(exits) {
    if (!exits.length) return el("p", {}, "Exits: none");
    const row = el("p", { class: "exits" }, "Exits: ");
    for (const dir of exits) {
      const button = el("button", { type: "button", class: "exit", "aria-label": `Go ${dir}` }, dir);
      button.addEventListener("click", () => {
        sendLine(dir);
        command.focus();
      });
      row.appendChild(button);
    }
    return row;
  }

  function drawRoom() {
    const r = roomInfo;
    if (!r) { fill("room", empty("Nowhere yet.")); return; }
    const exits = Object.keys(r.exits || {});
    // Room.Info lists the receiver too; the panel shows who else is there.
    const people = names(r.players).filter((n) => n !== panel.name).concat(names(r.npcs));
    fill("room",
      el("p", {}, el("strong", {}, r.name || "?")),
      r.area ? el("p", { class: "dim" }, r.area) : null,
      exitButtons(exits),
      el("p", {}, "Here: " + (people.length ? people.join(", ") : "nobody else")));
  }

  function drawQuests(q) {
    const parts = [];
    for (const quest of (q && q.active) || []) {
      const objectives = el("ul", { class: "objectives" });
      for (const o of quest.objectives || []) {
        const count = o.target > 1 ? ` (${o.count}/${o.target})` : "";
        const state = o.state === "done" ? "done" : o.state === "failed" ? "failed"
          : o.state === "locked" ? "locked" : "open";
        const optional = o.required === false ? " (optional)" : "";
        objectives.appendChild(el("li", { class: state, title: o.hint || null },
          o.text + count + optional, el("span", { class: "visually-hidden" }, ` (${state})`)));
      }
      const tag = quest.state === "completed" ? "ready to turn in" : "in progress";
      parts.push(el("div", { class: "quest" },
        el("div", { class: "title" }, `${quest.n}. ${quest.title} `,
          el("span", { class: "tag" }, `(${tag})`)),
        objectives));
    }
    const offers = (q && q.offers) || [];
    if (offers.length) {
      parts.push(el("p", { class: "dim" }, "Offered:"));
      parts.push(el("ul", {}, ...offers.map((o) =>
        el("li", {}, `${o.n}. ${o.title}` + (o.giver ? ` (${o.giver})` : "")))));
    }
    if (q && q.completed) parts.push(el("p", { class: "dim" }, `Completed: ${q.completed}`));
    fill("quests", ...(parts.length ? parts : [empty("No quests yet.")]));
  }

  let lastState = {};

  function statLine(key, s) {
    const limits = s.max !== undefined ? ` / ${s.max}` : "";
    const changed = lastState[key] !== undefined && lastState[key] !== s.value;
    lastState[key] = s.value;
    return el("div", { class: "stat" + (changed ? " changed" : "") },
      el("span", {}, `${s.label || s.name}: ${s.value}${limits}`),
      el("span", { class: "band" }, s.band || ""));
  }

  function drawState(st) {
    if (!st || !st.room) {
      lastState = {};
      fill("state", empty("Not in a narrated room."));
      return;
    }
    const parts = [el("p", {}, el("strong", {}, st.name || st.room))];
    const seen = {};
    const line = (key, s) => { seen[key] = true; return statLine(key, s); };
    for (const s of st.world || []) parts.push(line("w:" + s.name, s));
    for (const s of st.you || []) parts.push(line("y:" + s.name, s));
    for (const npc of st.npcs || []) {
      parts.push(el("p", { class: "dim" }, npc.name));
      for (const s of npc.stats || []) parts.push(line(`n:${npc.id}:${s.name}`, s));
    }
    const flags = Object.entries(st.flags || {});
    if (flags.length) {
      parts.push(el("ul", {}, ...flags.map(([k, v]) => {
        const changed = lastState["f:" + k] !== undefined && lastState["f:" + k] !== v;
        lastState["f:" + k] = v;
        seen["f:" + k] = true;
        return el("li", { class: changed ? "changed" : null }, `${k.replace(/_/g, " ")}: ${v ? "yes" : "no"}`);
      })));
    }
    for (const g of st.goals || []) {
      parts.push(el("p", {}, (g.done ? "✓ " : "• ") + g.text));
    }
    for (const key of Object.keys(lastState)) if (!seen[key]) delete lastState[key];
    fill("state", ...parts);
  }

  // ---------------------------------------------------------------- area map

  // Rooms are laid out from the exits walked: a room entered through "north" sits one
  // step north of the room left. Rooms seen only as exits are drawn dimmed.
  const STEP = {
    north: [0, -1], south: [0, 1], east: [1, 0], west: [-1, 0],
    northeast: [1, -1], northwest: [-1, -1], southeast: [1, 1], southwest: [-1, 1],
  };
  const maps = new Map(); // area id -> Map(num -> {x, y, visited, exits, name})
  let here = null;

  function placeRoom(info) {
    const area = info.area_id || info.area || "?";
    if (!maps.has(area)) maps.set(area, new Map());
    const rooms = maps.get(area);
    let room = rooms.get(info.num);
    if (!room) {
      let x = 0, y = 0;
      const from = here && maps.get(here.area) && maps.get(here.area).get(here.num);
      if (from && here.area === area) {
        const dir = Object.keys(from.exits || {}).find((d) => from.exits[d] === info.num);
        const step = dir && STEP[dir];
        if (step) { x = from.x + step[0]; y = from.y + step[1]; }
        else { x = from.x + 2; y = from.y; }
      }
      room = { x, y };
      rooms.set(info.num, room);
    }
    room.visited = true;
    room.name = info.name;
    room.exits = info.exits || {};
    for (const [dir, num] of Object.entries(room.exits)) {
      const step = STEP[dir];
      if (step && !rooms.has(num)) {
        rooms.set(num, { x: room.x + step[0], y: room.y + step[1], visited: false, exits: {} });
      }
    }
    here = { area, num: info.num };
  }

  function drawMap() {
    const rooms = here && maps.get(here.area);
    if (!rooms) { fill("map", empty("Rooms you visit appear here.")); return; }
    const cell = 16, size = 9;
    const xs = [], ys = [];
    for (const r of rooms.values()) { xs.push(r.x); ys.push(r.y); }
    const minX = Math.min(...xs), minY = Math.min(...ys);
    const width = (Math.max(...xs) - minX + 1) * cell, height = (Math.max(...ys) - minY + 1) * cell;
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", `-4 -4 ${Math.max(width, cell * 5) + 8} ${Math.max(height, cell * 3) + 8}`);
    svg.setAttribute("role", "img");
    const current = rooms.get(here.num);
    svg.setAttribute("aria-label", `Map of ${roomInfo && roomInfo.area ? roomInfo.area : "this area"}: `
      + `${[...rooms.values()].filter((r) => r.visited).length} rooms visited; you are in `
      + `${current && current.name ? current.name : "an unknown room"}.`);
    const px = (r) => (r.x - minX) * cell + cell / 2;
    const py = (r) => (r.y - minY) * cell + cell / 2;
    for (const r of rooms.values()) {
      for (const [dir, num] of Object.entries(r.exits || {})) {
        const other = rooms.get(num);
        if (!other || !STEP[dir]) continue;
        const line = document.createElementNS(ns, "line");
        line.setAttribute("class", "link");
        line.setAttribute("x1", px(r)); line.setAttribute("y1", py(r));
        line.setAttribute("x2", px(other)); line.setAttribute("y2", py(other));
        svg.appendChild(line);
      }
    }
    for (const [num, r] of rooms.entries()) {
      const rect = document.createElementNS(ns, "rect");
      rect.setAttribute("x", px(r) - size / 2); rect.setAttribute("y", py(r) - size / 2);
      rect.setAttribute("width", size); rect.setAttribute("height", size);
      rect.setAttribute("class", "room" + (num === here.num ? " here" : r.visited ? "" : " seen"));
      if (r.name) {
        const title = document.createElementNS(ns, "title");
        title.textContent = r.name;
        rect.appendChild(title);
      }
      svg.appendChild(rect);
      const vertical = ["up", "down"].filter((d) => (r.exits || {})[d] !== undefined);
      if (vertical.length) {
        const mark = document.createElementNS(ns, "text");
        mark.setAttribute("class", "updown");
        mark.setAttribute("x", px(r) + size / 2); mark.setAttribute("y", py(r) - size / 2);
        mark.textContent = vertical.map((d) => (d === "up" ? "▲" : "▼")).join("");
        svg.appendChild(mark);
      }
    }
    fill("map", svg);
  }

  // ---------------------------------------------------------------- GMCP

  function gmcp(pkg, data) {
    switch (pkg) {
      case "Char.Name":
        panel.name = data && data.name; drawVitals(); break;
      case "Char.Vitals":
        panel.vitals = data; drawVitals(); break;
      case "Char.Status":
        panel.status = data; drawVitals(); break;
      case "Char.Quests":
        drawQuests(data); break;
      case "Room.Info":
        if (data && data.num !== undefined) {
          roomInfo = data; placeRoom(data); drawRoom(); drawMap();
        }
        break;
      case "Room.Players":
        if (roomInfo) { roomInfo.players = data; drawRoom(); }
        break;
      // Who comes and goes afterwards arrives one player at a time (IRE's deltas).
      case "Room.AddPlayer":
        if (roomInfo && data && data.name) {
          const others = (roomInfo.players || []).filter((p) => p.name !== data.name);
          roomInfo.players = others.concat([data]); drawRoom();
        }
        break;
      case "Room.RemovePlayer":
        if (roomInfo && typeof data === "string") {
          roomInfo.players = (roomInfo.players || []).filter((p) => p.name !== data); drawRoom();
        }
        break;
      case "World.State":
        drawState(data); break;
      default:
        break;
    }
  }

  // Exposed for tests and for players' own scripts in the browser console.
  window.maid = { send: (line) => send({ line }), gmcp };

  connect();
  command.focus();
})();
