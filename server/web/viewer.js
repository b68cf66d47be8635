// Atoll web viewer: the world list, and a live view of one world drawn on a
// canvas from the draw frames of /api/worlds/ID/stream (Server-Sent Events).
// Plain JavaScript, no build step; docs/viewer.md describes the frames.
'use strict';

(() => {
  const $ = (id) => document.getElementById(id);
  const canvas = $('canvas');
  const ctx = canvas.getContext('2d');
  const BODY_TYPES = ['static', 'kinematic', 'dynamic'];

  // Everything the page knows; exposed for the browser test and the console.
  const state = {
    world: null, // the followed world's id
    source: null, // its EventSource
    frame: null, // the frame shown
    paused: false,
    view: { cx: 0, cy: 0, scale: 20 }, // world point at the centre, pixels per metre
    fitted: false,
    mouse: null, // {x, y} in CSS pixels over the canvas
    hover: null, // [index, generation] of the hovered body
    drag: null,
    framesReceived: 0,
    framesDrawn: 0,
    lastTick: -1,
    drawMs: 0,
    maxDrawMs: 0,
    fps: { count: 0, since: performance.now() },
    redrawQueued: false,
  };
  window.atollViewer = state;

  // ---- the world list -------------------------------------------------
  async function refreshWorlds() {
    try {
      const res = await fetch('/api/worlds', { cache: 'no-store' });
      if (res.ok) showWorlds((await res.json()).worlds);
    } catch (e) {
      // the server went away; keep trying
    }
    setTimeout(refreshWorlds, 1000);
  }

  function showWorlds(worlds) {
    const tbody = $('worlds').tBodies[0];
    tbody.textContent = '';
    $('worlds-empty').hidden = worlds.length > 0;
    for (const w of worlds) {
      const tr = document.createElement('tr');
      tr.dataset.world = w.id;
      tr.classList.toggle('selected', w.id === state.world);
      const late = `${w.late_ticks} / ${(w.max_lateness_us / 1000).toFixed(1)} ms`;
      for (const text of [w.id, w.tick, w.tick_rate, w.bodies, w.awake_bodies, w.sessions, late]) {
        const td = document.createElement('td');
        td.textContent = text;
        tr.appendChild(td);
      }
      tr.addEventListener('click', () => selectWorld(w.id));
      tbody.appendChild(tr);
    }
    if (worlds.length > 0) {
      $('source').textContent =
        worlds[0].kind === 'hosted' ? 'atoll-server' : `atoll view (${worlds[0].kind})`;
    }
    // atoll view serves one world: show it right away.
    if (state.world === null && worlds.length === 1 && worlds[0].kind !== 'hosted') {
      selectWorld(worlds[0].id);
    }
  }

  // ---- following a world -----------------------------------------------
  async function selectWorld(id) {
    closeStream();
    state.world = id;
    state.frame = null;
    state.fitted = false;
    state.lastTick = -1;
    state.hover = null;
    history.replaceState(null, '', `?world=${encodeURIComponent(id)}`);
    $('world-name').textContent = id;
    for (const tr of document.querySelectorAll('#worlds tbody tr')) {
      tr.classList.toggle('selected', tr.dataset.world === id);
    }
    showMessage('');
    const res = await fetch(`/api/worlds/${encodeURIComponent(id)}`, { cache: 'no-store' });
    if (!res.ok) {
      const body = await res.json().catch(() => ({ error: res.statusText }));
      showMessage(body.error);
      return;
    }
    openStream();
  }

  function openStream() {
    closeStream();
    if (state.world === null) return;
    const aabbs = $('show-aabbs').checked ? '?aabbs=1' : '';
    const source = new EventSource(`/api/worlds/${encodeURIComponent(state.world)}/stream${aabbs}`);
    state.source = source;
    source.addEventListener('frame', (event) => onFrame(JSON.parse(event.data)));
    source.addEventListener('end', (event) => {
      showMessage(`the world ended: ${JSON.parse(event.data).message}`);
      closeStream();
    });
    $('pause').disabled = false;
    $('fit').disabled = false;
  }

  function closeStream() {
    if (state.source !== null) state.source.close();
    state.source = null;
  }

  function onFrame(frame) {
    state.framesReceived++;
    if (state.paused) return; // the view stays on the frame shown
    state.frame = frame;
    state.lastTick = frame.tick;
    showStatus(frame);
    queueRedraw();
  }

  function showStatus(f) {
    $('tick').textContent = f.tick;
    $('hash').textContent = f.hash;
    $('step').textContent = f.step_ms.toFixed(3);
    $('bodies').textContent = f.counters.bodies;
    $('awake').textContent = f.counters.awake_bodies;
    $('contacts').textContent = f.counters.touching_contacts;
    let note = f.note || '';
    if (!f.hash_matches) note = `hash differs from the authority's ${f.expected_hash}. ${note}`;
    if (f.truncated) note = `frame truncated. ${note}`;
    if (state.paused) note = `paused at tick ${f.tick}. ${note}`;
    $('note').textContent = note;
  }

  function showMessage(text) {
    $('message').hidden = !text;
    $('message').textContent = text;
  }

  // ---- drawing -----------------------------------------------------------
  function queueRedraw() {
    if (state.redrawQueued) return;
    state.redrawQueued = true;
    requestAnimationFrame(() => {
      state.redrawQueued = false;
      draw();
    });
  }

  function fit(bounds) {
    const [x0, y0, x1, y1] = bounds;
    const w = canvas.clientWidth || 800;
    const h = canvas.clientHeight || 600;
    state.view.cx = (x0 + x1) / 2;
    state.view.cy = (y0 + y1) / 2;
    state.view.scale = 0.9 * Math.min(w / Math.max(x1 - x0, 1e-3), h / Math.max(y1 - y0, 1e-3));
    state.fitted = true;
  }

  function draw() {
    const t0 = performance.now();
    const dpr = window.devicePixelRatio || 1;
    const w = canvas.clientWidth;
    const h = canvas.clientHeight;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(h * dpr);
    }
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    const f = state.frame;
    if (f === null) return;
    if (!state.fitted) fit(f.bounds);
    const { cx, cy, scale } = state.view;
    // World metres, y up, onto device pixels.
    ctx.setTransform(dpr * scale, 0, 0, -dpr * scale, dpr * (w / 2 - cx * scale),
                     dpr * (h / 2 + cy * scale));
    const pixel = 1 / scale;
    ctx.lineWidth = pixel;
    ctx.lineJoin = 'round';
    ctx.lineCap = 'round';
    drawLayer(f.shapes, pixel);
    if ($('show-joints').checked) drawLayer(f.joints, pixel);
    if ($('show-contacts').checked) drawLayer(f.contacts, pixel);
    if ($('show-aabbs').checked && f.aabbs) drawLayer(f.aabbs, pixel);
    const body = hoveredBody();
    if (body !== null) {
      ctx.strokeStyle = '#ffffff';
      ctx.lineWidth = 2 * pixel;
      ctx.strokeRect(body[12], body[13], body[14] - body[12], body[15] - body[13]);
    }
    showTooltip(body);
    state.framesDrawn++;
    state.drawMs = performance.now() - t0;
    state.maxDrawMs = Math.max(state.maxDrawMs, state.drawMs);
    $('draw-ms').textContent = state.drawMs.toFixed(1);
    const now = performance.now();
    state.fps.count++;
    if (now - state.fps.since >= 1000) {
      $('fps').textContent = Math.round((1000 * state.fps.count) / (now - state.fps.since));
      state.fps.count = 0;
      state.fps.since = now;
    }
  }

  function drawLayer(layer, pixel) {
    for (const p of layer) {
      switch (p[0]) {
        case 'p': { // fill, stroke, radius, x0, y0, ...
          ctx.beginPath();
          ctx.moveTo(p[4], p[5]);
          for (let i = 6; i < p.length; i += 2) ctx.lineTo(p[i], p[i + 1]);
          ctx.closePath();
          ctx.fillStyle = p[1];
          ctx.fill();
          if (p[3] > 0) { // rounded: the core grown by the radius
            ctx.lineWidth = 2 * p[3];
            ctx.strokeStyle = p[1];
            ctx.stroke();
            ctx.lineWidth = pixel;
          }
          ctx.strokeStyle = p[2];
          ctx.stroke();
          break;
        }
        case 'c': { // fill, stroke, x, y, r, ax, ay
          ctx.beginPath();
          ctx.arc(p[3], p[4], p[5], 0, 2 * Math.PI);
          ctx.fillStyle = p[1];
          ctx.fill();
          ctx.strokeStyle = p[2];
          ctx.moveTo(p[3], p[4]);
          ctx.lineTo(p[3] + p[5] * p[6], p[4] + p[5] * p[7]);
          ctx.stroke();
          break;
        }
        case 'k': { // fill, stroke, x1, y1, x2, y2, r
          ctx.beginPath();
          ctx.moveTo(p[3], p[4]);
          ctx.lineTo(p[5], p[6]);
          ctx.lineWidth = 2 * p[7];
          ctx.strokeStyle = p[1];
          ctx.stroke();
          ctx.lineWidth = pixel;
          ctx.strokeStyle = p[2];
          ctx.stroke();
          break;
        }
        case 's': // color, x1, y1, x2, y2
          ctx.beginPath();
          ctx.moveTo(p[2], p[3]);
          ctx.lineTo(p[4], p[5]);
          ctx.strokeStyle = p[1];
          ctx.stroke();
          break;
        case 'd': { // color, x, y, size in pixels
          const r = (p[4] / 2) * pixel;
          ctx.fillStyle = p[1];
          ctx.fillRect(p[2] - r, p[3] - r, 2 * r, 2 * r);
          break;
        }
        case 't': { // color, x, y, text
          ctx.save();
          ctx.translate(p[2], p[3]);
          ctx.scale(pixel, -pixel);
          ctx.fillStyle = p[1];
          ctx.fillText(p[4], 0, 0);
          ctx.restore();
          break;
        }
        default:
          break;
      }
    }
  }

  // ---- hovering ------------------------------------------------------------
  function worldPoint(mouse) {
    const { cx, cy, scale } = state.view;
    return {
      x: cx + (mouse.x - canvas.clientWidth / 2) / scale,
      y: cy - (mouse.y - canvas.clientHeight / 2) / scale,
    };
  }

  // The smallest body box under the mouse (a box on the ground rather than
  // the ground), re-found in every frame so the fields stay current.
  function hoveredBody() {
    const f = state.frame;
    if (f === null || state.mouse === null || state.drag !== null) return null;
    const p = worldPoint(state.mouse);
    let best = null;
    let bestArea = Infinity;
    for (const b of f.bodies) {
      if (p.x < b[12] || p.x > b[14] || p.y < b[13] || p.y > b[15]) continue;
      const area = (b[14] - b[12]) * (b[15] - b[13]);
      if (area < bestArea) {
        best = b;
        bestArea = area;
      }
    }
    state.hover = best === null ? null : [best[0], best[1]];
    return best;
  }

  function showTooltip(b) {
    const tip = $('tooltip');
    if (b === null) {
      tip.hidden = true;
      return;
    }
    const n = (v) => Number(v).toFixed(3);
    tip.textContent = [
      `body ${b[0]}:${b[1]}  ${BODY_TYPES[b[3]] || b[3]}, ${b[4] ? 'awake' : 'asleep'}`,
      `owner     ${b[2] ? `slot ${b[2]}` : 'none'}`,
      `position  (${n(b[5])}, ${n(b[6])})  angle ${n(b[7])} rad`,
      `velocity  (${n(b[8])}, ${n(b[9])}) m/s  ω ${n(b[10])} rad/s`,
      `mass      ${n(b[11])} kg`,
    ].join('\n');
    tip.hidden = false;
    const x = Math.min(state.mouse.x + 16, canvas.clientWidth - tip.offsetWidth - 4);
    const y = Math.min(state.mouse.y + 16, canvas.clientHeight - tip.offsetHeight - 4);
    tip.style.left = `${Math.max(0, x)}px`;
    tip.style.top = `${Math.max(0, y)}px`;
  }

  // ---- pan, zoom, controls ---------------------------------------------------
  function mouseOf(event) {
    const r = canvas.getBoundingClientRect();
    return { x: event.clientX - r.left, y: event.clientY - r.top };
  }

  canvas.addEventListener('mousedown', (event) => {
    state.drag = mouseOf(event);
    canvas.classList.add('dragging');
  });
  window.addEventListener('mouseup', () => {
    state.drag = null;
    canvas.classList.remove('dragging');
    queueRedraw();
  });
  canvas.addEventListener('mousemove', (event) => {
    const m = mouseOf(event);
    if (state.drag !== null) {
      state.view.cx -= (m.x - state.drag.x) / state.view.scale;
      state.view.cy += (m.y - state.drag.y) / state.view.scale;
      state.drag = m;
    }
    state.mouse = m;
    queueRedraw();
  });
  canvas.addEventListener('mouseleave', () => {
    state.mouse = null;
    queueRedraw();
  });
  canvas.addEventListener('wheel', (event) => {
    event.preventDefault();
    const m = mouseOf(event);
    const before = worldPoint(m);
    const factor = Math.exp(-event.deltaY * 0.0015);
    state.view.scale = Math.min(1e5, Math.max(1e-3, state.view.scale * factor));
    const after = worldPoint(m);
    // Keep the point under the mouse where it is.
    state.view.cx += before.x - after.x;
    state.view.cy += before.y - after.y;
    queueRedraw();
  }, { passive: false });

  $('pause').addEventListener('click', () => {
    state.paused = !state.paused;
    $('pause').textContent = state.paused ? 'Resume' : 'Pause';
    if (state.frame !== null) showStatus(state.frame);
  });
  $('fit').addEventListener('click', () => {
    if (state.frame !== null) fit(state.frame.bounds);
    queueRedraw();
  });
  $('show-contacts').addEventListener('change', queueRedraw);
  $('show-joints').addEventListener('change', queueRedraw);
  // AABBs cost bytes per frame: the stream sends them only when asked.
  $('show-aabbs').addEventListener('change', openStream);
  window.addEventListener('resize', queueRedraw);

  const wanted = new URLSearchParams(location.search).get('world');
  if (wanted) selectWorld(wanted);
  refreshWorlds();
})();
