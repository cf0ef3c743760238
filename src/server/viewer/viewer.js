// deno-lint-ignore-file no-window no-window-prefix -- browser code: `window` is the page's global.
// arcpath live viewer: draws a map from GET /api/maps/ID?tiles=1, plans with POST /api/plan on two clicks,
// and follows the open gRPC streams through the Server-Sent Events of GET /api/streams. The server sends paths
// already flattened (motion/pathDrawing.ts, as the render tool draws them), so this page only strokes them.
"use strict";

const $ = (id) => document.getElementById(id);
const canvas = $("map");
const ctx = canvas.getContext("2d");

const state = {
  map: null, // {id, width, height, tiles: Uint8Array, terrain}
  image: null, // an offscreen canvas of the tiles, one pixel per tile
  scale: 8, // pixels per tile
  ox: 0, // screen position of tile (0, 0)
  oy: 0,
  start: null,
  goal: null,
  plan: null, // {response, drawing}
  streams: new Map(), // id -> WatchEvent of type "stream"
  events: null,
};

function token() {
  return $("token").value.trim();
}

async function api(path, init = {}) {
  const headers = { ...(init.headers ?? {}) };
  if (token()) headers.authorization = `Bearer ${token()}`;
  const res = await fetch(path, { ...init, headers });
  const body = await res.json();
  if (!res.ok) throw new Error(`${body.code}: ${body.message}`);
  return body;
}

function setStatus(text, error = false) {
  $("status").textContent = text;
  $("status").className = error ? "error" : "";
}

// ---- map drawing -------------------------------------------------------------------------------------------

/**
 * The color of a terrain code: blocked dark, costly tiles tinted by cost, roads light brown. MapInfo.terrain
 * lists the passable (and road) codes; every code not listed is impassable.
 */
function tileColors(terrain) {
  const colors = new Array(256).fill([59, 59, 59]);
  for (const t of terrain) {
    if (t.impassable) colors[t.code] = [59, 59, 59];
    else if (t.cost <= 1 && !t.road) colors[t.code] = [247, 245, 239];
    else if (t.road) colors[t.code] = [222, 200, 160];
    else if (t.cost > 1) {
      const k = Math.min(1, (t.cost - 1) / 4);
      colors[t.code] = [Math.round(247 - 80 * k), Math.round(245 - 30 * k), Math.round(239 - 120 * k)];
    }
  }
  return colors;
}

function buildImage(map) {
  const img = document.createElement("canvas");
  img.width = map.width;
  img.height = map.height;
  const c = img.getContext("2d");
  const data = c.createImageData(map.width, map.height);
  const colors = tileColors(map.terrain);
  for (let i = 0; i < map.tiles.length; i++) {
    const [r, g, b] = colors[map.tiles[i]];
    data.data.set([r, g, b, 255], i * 4);
  }
  c.putImageData(data, 0, 0);
  return img;
}

function fit() {
  const m = state.map;
  if (!m) return;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  state.scale = Math.max(1, Math.min(w / m.width, h / m.height) * 0.95);
  state.ox = (w - m.width * state.scale) / 2;
  state.oy = (h - m.height * state.scale) / 2;
}

/** Screen pixel (CSS px, relative to the canvas) of a map point in tiles. */
function tileToScreen(x, y) {
  return { x: state.ox + x * state.scale, y: state.oy + y * state.scale };
}

function screenToTile(px, py) {
  return { x: (px - state.ox) / state.scale, y: (py - state.oy) / state.scale };
}

function strokePoints(points) {
  ctx.beginPath();
  for (let i = 0; i < points.length; i += 2) {
    const p = tileToScreen(points[i], points[i + 1]);
    if (i === 0) ctx.moveTo(p.x, p.y);
    else ctx.lineTo(p.x, p.y);
  }
}

/** Live paths' colors: open streams green, fleet units purple. */
const LIVE = {
  stream: { line: "#16a085", edge: "rgba(22,160,133,0.5)", fill: "rgba(22,160,133,0.06)" },
  fleet: { line: "#8e44ad", edge: "rgba(142,68,173,0.5)", fill: "rgba(142,68,173,0.06)" },
};

/** Draws a path as render does: swept footprint, segments by style, cusps (`live`: a stream's or fleet's). */
function drawPath(d, live) {
  const s = state.scale;
  ctx.lineWidth = Math.max(0.5, 0.04 * s);
  ctx.strokeStyle = live ? LIVE[live].edge : "rgba(42,122,176,0.5)";
  ctx.fillStyle = live ? LIVE[live].fill : "rgba(42,122,176,0.08)";
  for (const f of d.footprints) {
    if (f.polygon) {
      strokePoints(f.polygon);
      ctx.closePath();
    } else {
      const c = tileToScreen(f.circle.x, f.circle.y);
      ctx.beginPath();
      ctx.arc(c.x, c.y, f.circle.r * s, 0, 2 * Math.PI);
    }
    ctx.fill();
    ctx.stroke();
  }
  ctx.lineWidth = Math.max(2, 0.12 * s);
  ctx.lineCap = "round";
  for (const seg of d.segments) {
    ctx.strokeStyle = live ? LIVE[live].line : seg.style.color;
    ctx.setLineDash(seg.style.dashed ? [0.2 * s, 0.15 * s] : []);
    strokePoints(seg.points);
    ctx.stroke();
  }
  ctx.setLineDash([]);
  ctx.lineWidth = Math.max(1.5, 0.08 * s);
  ctx.strokeStyle = "#c0392b";
  for (const c of d.cusps) {
    const p = tileToScreen(c.x, c.y);
    ctx.beginPath();
    ctx.arc(p.x, p.y, Math.max(4, 0.3 * s), 0, 2 * Math.PI);
    ctx.stroke();
  }
}

function marker(p, color, heading) {
  const q = tileToScreen(p.x, p.y);
  ctx.fillStyle = color;
  ctx.beginPath();
  ctx.arc(q.x, q.y, Math.max(4, 0.25 * state.scale), 0, 2 * Math.PI);
  ctx.fill();
  if (heading !== undefined) {
    const r = Math.max(12, 0.8 * state.scale);
    ctx.strokeStyle = color;
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.moveTo(q.x, q.y);
    ctx.lineTo(q.x + r * Math.cos(heading), q.y + r * Math.sin(heading));
    ctx.stroke();
  }
}

function draw() {
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
  }
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = "#ddd";
  ctx.fillRect(0, 0, w, h);
  if (!state.map) return;
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(
    state.image,
    state.ox,
    state.oy,
    state.map.width * state.scale,
    state.map.height * state.scale,
  );
  for (const ev of state.streams.values()) {
    if (ev.map !== state.map.id) continue;
    if (ev.type === "fleet") { for (const u of ev.units) drawPath(u.drawing, "fleet"); }
    else drawPath(ev.drawing, "stream");
  }
  if (state.plan) drawPath(state.plan.drawing, false);
  if (state.start) marker(state.start, "#27ae60", state.start.heading);
  if (state.goal) marker(state.goal, "#c0392b");
}

// ---- data --------------------------------------------------------------------------------------------------

async function loadMaps() {
  const { maps } = await api("/api/maps");
  const sel = $("mapSelect");
  const keep = sel.value;
  sel.innerHTML = "";
  for (const m of maps) sel.add(new Option(`${m.id} (${m.width} x ${m.height})`, m.id));
  if (keep && maps.some((m) => m.id === keep)) sel.value = keep;
  const { units } = await api("/api/units");
  const us = $("unitSelect");
  us.innerHTML = "";
  for (const u of units) us.add(new Option(`${u.name} (turning radius ${u.turning_radius})`, u.name));
  us.value = units.some((u) => u.name === "tank") ? "tank" : units[0]?.name;
  if (sel.value) await loadMap(sel.value);
}

async function loadMap(id) {
  const m = await api(`/api/maps/${encodeURIComponent(id)}?tiles=1`);
  const bin = atob(m.tiles.tiles);
  const tiles = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) tiles[i] = bin.charCodeAt(i);
  state.map = { id: m.id, width: m.width, height: m.height, version: m.version, terrain: m.terrain, tiles };
  state.image = buildImage(state.map);
  state.start = state.goal = state.plan = null;
  $("result").textContent = "";
  delete $("result").dataset.segments;
  fit();
  draw();
  setStatus(`map ${m.id}: ${m.width} x ${m.height}, version ${m.version.slice(0, 12)}`);
  canvas.dataset.map = m.id;
}

async function plan() {
  const heading = (Number($("heading").value) || 0) * Math.PI / 180;
  const body = {
    map: { id: state.map.id },
    unit: { name: $("unitSelect").value },
    start: { x: state.start.x, y: state.start.y, heading },
    goal: { x: state.goal.x, y: state.goal.y },
    planner: $("plannerSelect").value,
  };
  setStatus("planning...");
  const r = $("result");
  try {
    state.plan = await api("/api/plan", { method: "POST", body: JSON.stringify(body) });
    const res = state.plan.response, d = state.plan.drawing;
    r.textContent =
      `${res.status}\nplanner ${res.stats?.planner ?? body.planner}\nlength ${res.length.toFixed(2)} ` +
      `tiles, ${d.segmentCount} segments, ${d.cusps.length} cusps\ncost ${res.cost.toFixed(2)}, ` +
      `${(res.stats?.search_micros / 1000).toFixed(1)} ms search` + (res.message ? `\n${res.message}` : "");
    Object.assign(r.dataset, {
      status: res.status,
      segments: String(d.segmentCount),
      length: String(res.length),
      cusps: String(d.cusps.length),
      footprints: String(d.footprints.length),
    });
    setStatus("");
  } catch (e) {
    state.plan = null;
    r.textContent = "";
    r.dataset.status = "ERROR";
    setStatus(String(e.message ?? e), true);
  }
  draw();
}

function watchStreams() {
  state.events?.close();
  const q = token() ? `?access_token=${encodeURIComponent(token())}` : "";
  const es = new EventSource(`/api/streams${q}`);
  state.events = es;
  es.onmessage = (m) => {
    const ev = JSON.parse(m.data);
    if (ev.type === "closed") state.streams.delete(ev.id);
    else state.streams.set(ev.id, ev);
    const ul = $("streams");
    ul.innerHTML = "";
    for (const s of state.streams.values()) {
      const li = document.createElement("li");
      if (s.type === "fleet") {
        li.textContent = `fleet #${s.id} ${s.map}: ${s.units.length} units (` +
          s.units.map((u) => `${u.unit} ${u.status}`).join(", ") + ")";
        li.dataset.units = String(s.units.length);
      } else {
        li.textContent = `#${s.id} ${s.map}: ${s.kind} ${s.status}, ${s.drawing.segmentCount} segments, ` +
          `update ${s.sequence}`;
        li.dataset.segments = String(s.drawing.segmentCount);
      }
      li.dataset.kind = s.type;
      li.dataset.map = s.map;
      li.onclick = () => s.map !== state.map?.id && ($("mapSelect").value = s.map, loadMap(s.map));
      ul.appendChild(li);
    }
    $("streams").dataset.count = String(state.streams.size);
    draw();
  };
}

// ---- interaction -------------------------------------------------------------------------------------------

let drag = null;
canvas.addEventListener("mousedown", (e) => {
  drag = { x: e.offsetX, y: e.offsetY, ox: state.ox, oy: state.oy, moved: false };
});
canvas.addEventListener("mousemove", (e) => {
  const t = screenToTile(e.offsetX, e.offsetY);
  const inside = state.map && t.x >= 0 && t.y >= 0 && t.x < state.map.width && t.y < state.map.height;
  $("coords").textContent = inside
    ? `tile (${Math.floor(t.x)}, ${Math.floor(t.y)})  x ${t.x.toFixed(2)} y ${t.y.toFixed(2)}`
    : "";
  if (!drag) return;
  const dx = e.offsetX - drag.x, dy = e.offsetY - drag.y;
  if (Math.abs(dx) + Math.abs(dy) > 4) drag.moved = true;
  if (drag.moved) {
    state.ox = drag.ox + dx;
    state.oy = drag.oy + dy;
    draw();
  }
});
canvas.addEventListener("mouseup", (e) => {
  const d = drag;
  drag = null;
  if (!d || d.moved || !state.map) return;
  const t = screenToTile(e.offsetX, e.offsetY);
  if (t.x < 0 || t.y < 0 || t.x >= state.map.width || t.y >= state.map.height) return;
  const p = { x: Math.round(t.x * 100) / 100, y: Math.round(t.y * 100) / 100 };
  if (!state.start || state.goal) {
    state.start = { ...p, heading: (Number($("heading").value) || 0) * Math.PI / 180 };
    state.goal = null;
    state.plan = null;
    draw();
  } else {
    state.goal = p;
    plan();
  }
});
canvas.addEventListener("wheel", (e) => {
  e.preventDefault();
  const t = screenToTile(e.offsetX, e.offsetY);
  state.scale = Math.min(200, Math.max(0.2, state.scale * Math.exp(-e.deltaY * 0.0015)));
  state.ox = e.offsetX - t.x * state.scale;
  state.oy = e.offsetY - t.y * state.scale;
  draw();
}, { passive: false });
window.addEventListener("resize", draw);
$("mapSelect").addEventListener(
  "change",
  () => loadMap($("mapSelect").value).catch((e) => setStatus(e.message, true)),
);
$("token").addEventListener("change", () => {
  watchStreams();
  loadMaps().catch((e) => setStatus(e.message, true));
});

// For tests and scripts: where a tile is on screen, and the canvas color there.
window.viewer = {
  state,
  tileToScreen,
  pixelAt(x, y) {
    const p = tileToScreen(x, y), dpr = window.devicePixelRatio || 1;
    return Array.from(ctx.getImageData(Math.round(p.x * dpr), Math.round(p.y * dpr), 1, 1).data);
  },
  loadMap,
};

watchStreams();
loadMaps().catch((e) => setStatus(e.message, true));
