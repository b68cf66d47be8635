// Atoll web viewer: the world list, and a live view of one world drawn on a
// canvas from the draw frames of /api/worlds/ID/stream (Server-Sent Events);
// the recording list and the replay inspector (frames of
// /api/recordings/ID/frame?tick=T, verification over
// /api/recordings/ID/verify). Plain JavaScript, no build step;
// docs/viewer.md describes the frames.
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
    drawTimes: [], // the last 120 draws' ms, for the browser test's median
    fps: { count: 0, since: performance.now() },
    redrawQueued: false,
    // The replay inspector: null, or {id, first, last, tickRate, tick,
    // playing, speed, inflight, pending, verify, divergence}.
    replay: null,
    highlight: new Set(), // body indices outlined in red (a divergence)
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
    // atoll view serves one world: show it right away (unless a recording
    // is open in the inspector).
    if (state.world === null && state.replay === null && !wantedRecording &&
        worlds.length === 1 && worlds[0].kind !== 'hosted') {
      selectWorld(worlds[0].id);
    }
  }

  // ---- following a world -----------------------------------------------
  async function selectWorld(id) {
    closeStream();
    closeReplay();
    state.world = id;
    state.frame = null;
    state.fitted = false;
    state.lastTick = -1;
    state.hover = null;
    history.replaceState(null, '', `?world=${encodeURIComponent(id)}`);
    for (const tr of document.querySelectorAll('#recordings tbody tr')) {
      tr.classList.remove('selected');
    }
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
    if (!f.hash_matches) {
      const authority = state.replay !== null ? 'the recording\'s' : 'the authority\'s';
      note = `hash differs from ${authority} ${f.expected_hash}. ${note}`;
    }
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

  // Paints frame `f` on canvas `cnv` seen through `view`; bodies whose
  // index is in `highlight` get a red outline. Returns the pixel size in
  // metres.
  function paintFrame(cnv, c, f, view, highlight) {
    const dpr = window.devicePixelRatio || 1;
    const w = cnv.clientWidth;
    const h = cnv.clientHeight;
    if (cnv.width !== Math.round(w * dpr) || cnv.height !== Math.round(h * dpr)) {
      cnv.width = Math.round(w * dpr);
      cnv.height = Math.round(h * dpr);
    }
    c.setTransform(1, 0, 0, 1, 0, 0);
    c.clearRect(0, 0, cnv.width, cnv.height);
    if (f === null) return 0;
    const { cx, cy, scale } = view;
    // World metres, y up, onto device pixels.
    c.setTransform(dpr * scale, 0, 0, -dpr * scale, dpr * (w / 2 - cx * scale),
                   dpr * (h / 2 + cy * scale));
    const pixel = 1 / scale;
    c.lineWidth = pixel;
    c.lineJoin = 'round';
    c.lineCap = 'round';
    drawLayer(c, f.shapes, pixel);
    if ($('show-joints').checked) drawLayer(c, f.joints, pixel);
    if ($('show-contacts').checked) drawLayer(c, f.contacts, pixel);
    if ($('show-aabbs').checked && f.aabbs) drawLayer(c, f.aabbs, pixel);
    if (highlight.size > 0) {
      c.strokeStyle = '#ff3b3b';
      c.lineWidth = 3 * pixel;
      for (const b of f.bodies) {
        if (!highlight.has(b[0])) continue;
        const m = 4 * pixel;
        c.strokeRect(b[12] - m, b[13] - m, b[14] - b[12] + 2 * m, b[15] - b[13] + 2 * m);
      }
      c.lineWidth = pixel;
    }
    return pixel;
  }

  function draw() {
    const t0 = performance.now();
    const f = state.frame;
    if (f !== null && !state.fitted) fit(f.bounds);
    const pixel = paintFrame(canvas, ctx, f, state.view, state.highlight);
    if (f === null) return;
    const body = hoveredBody();
    if (body !== null) {
      ctx.strokeStyle = '#ffffff';
      ctx.lineWidth = 2 * pixel;
      ctx.strokeRect(body[12], body[13], body[14] - body[12], body[15] - body[13]);
    }
    showTooltip(body);
    state.framesDrawn++;
    state.drawMs = performance.now() - t0;
    state.drawTimes.push(state.drawMs);
    if (state.drawTimes.length > 120) state.drawTimes.shift();
    $('draw-ms').textContent = state.drawMs.toFixed(1);
    const now = performance.now();
    state.fps.count++;
    if (now - state.fps.since >= 1000) {
      $('fps').textContent = Math.round((1000 * state.fps.count) / (now - state.fps.since));
      state.fps.count = 0;
      state.fps.since = now;
    }
  }

  // The server batches polygons, circles, segments and points by colour as
  // SVG path text (docs/viewer.md): a frame of thousands of shapes is one
  // Path2D parse and a fill and a stroke per colour. (Paths built here
  // cost more: Path2D's moveTo/lineTo calls from JS about 3 us each, 80 ms
  // for a 5 000-box pyramid; path text built in JS 7 ms.) Fills go first,
  // then outlines; rounded polygons, capsules and text, which need a line
  // width or transform of their own, are drawn last, one by one.
  function drawLayer(ctx, layer, pixel) {
    const strokes = [];
    const single = [];
    for (const p of layer) {
      switch (p[0]) {
        case 'P': { // fill, stroke, path, marks
          const path = new Path2D(p[3]);
          ctx.fillStyle = p[1];
          ctx.fill(path);
          strokes.push([p[2], path, pixel, 'round']);
          if (p[4] !== '') strokes.push([p[2], new Path2D(p[4]), pixel, 'round']);
          break;
        }
        case 'S': // color, path
          strokes.push([p[1], new Path2D(p[2]), pixel, 'round']);
          break;
        case 'D': // color, size in pixels, path
          strokes.push([p[1], new Path2D(p[3]), p[2] * pixel, 'square']);
          break;
        case 'p':
        case 'k':
        case 't':
          single.push(p);
          break;
        default:
          break;
      }
    }
    for (const [color, path, width, cap] of strokes) {
      ctx.strokeStyle = color;
      ctx.lineWidth = width;
      ctx.lineCap = cap;
      ctx.stroke(path);
    }
    ctx.lineWidth = pixel;
    ctx.lineCap = 'round';
    for (const p of single) drawSingle(ctx, p, pixel);
  }

  // The current path grown by `radius` in `fill`, then outlined in `stroke`
  // one pixel wide: a rounded polygon or a capsule.
  function strokeRounded(ctx, fill, stroke, radius, pixel) {
    ctx.lineWidth = 2 * radius;
    ctx.strokeStyle = fill;
    ctx.stroke();
    ctx.lineWidth = pixel;
    ctx.strokeStyle = stroke;
    ctx.stroke();
  }

  function drawSingle(ctx, p, pixel) {
    switch (p[0]) {
      case 'p': { // a rounded polygon: the core grown by the radius
        ctx.beginPath();
        ctx.moveTo(p[4], p[5]);
        for (let i = 6; i < p.length; i += 2) ctx.lineTo(p[i], p[i + 1]);
        ctx.closePath();
        ctx.fillStyle = p[1];
        ctx.fill();
        strokeRounded(ctx, p[1], p[2], p[3], pixel);
        break;
      }
      case 'k': { // fill, stroke, x1, y1, x2, y2, r
        ctx.beginPath();
        ctx.moveTo(p[3], p[4]);
        ctx.lineTo(p[5], p[6]);
        strokeRounded(ctx, p[1], p[2], p[7], pixel);
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

  // ---- the replay inspector ---------------------------------------------------
  // Fetches the recording list; false when the server has no inspector.
  async function loadRecordings() {
    try {
      const res = await fetch('/api/recordings', { cache: 'no-store' });
      if (res.ok) showRecordings((await res.json()).recordings);
      return res.status !== 404;
    } catch (e) {
      return true; // the server went away; keep trying
    }
  }

  async function refreshRecordings() {
    if (await loadRecordings()) setTimeout(refreshRecordings, 2000);
  }

  function showRecordings(recordings) {
    $('recordings-panel').hidden = false;
    const tbody = $('recordings').tBodies[0];
    tbody.textContent = '';
    $('recordings-empty').hidden = recordings.length > 0;
    for (const r of recordings) {
      const tr = document.createElement('tr');
      tr.dataset.recording = r.id;
      tr.title = r.name;
      tr.classList.toggle('selected', state.replay !== null && r.id === state.replay.id);
      const size = r.bytes >= 1 << 20 ? `${(r.bytes / (1 << 20)).toFixed(1)} MiB`
                                       : `${(r.bytes / 1024).toFixed(1)} KiB`;
      for (const text of [r.id, r.source, size]) {
        const td = document.createElement('td');
        td.textContent = text;
        tr.appendChild(td);
      }
      tr.addEventListener('click', () => openRecording(r.id));
      tbody.appendChild(tr);
    }
  }

  async function uploadRecording(file) {
    $('upload-status').textContent = `uploading ${file.name}…`;
    try {
      const res = await fetch(`/api/recordings?name=${encodeURIComponent(file.name)}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/octet-stream' },
        body: file,
      });
      const body = await res.json().catch(() => ({ error: res.statusText }));
      if (!res.ok) {
        $('upload-status').textContent = body.error;
        return;
      }
      $('upload-status').textContent = '';
      await loadRecordings();
      await openRecording(body.id);
    } catch (e) {
      $('upload-status').textContent = `upload failed: ${e}`;
    }
  }

  async function openRecording(id) {
    closeStream();
    closeReplay();
    state.world = null;
    state.frame = null;
    state.fitted = false;
    state.hover = null;
    history.replaceState(null, '', `?recording=${encodeURIComponent(id)}`);
    $('world-name').textContent = `recording ${id}`;
    for (const tr of document.querySelectorAll('#worlds tbody tr')) tr.classList.remove('selected');
    for (const tr of document.querySelectorAll('#recordings tbody tr')) {
      tr.classList.toggle('selected', tr.dataset.recording === id);
    }
    $('pause').disabled = true;
    $('fit').disabled = false;
    showMessage('');
    const res = await fetch(`/api/recordings/${encodeURIComponent(id)}`, { cache: 'no-store' });
    const body = await res.json().catch(() => ({ error: res.statusText }));
    if (!res.ok) {
      showMessage(body.error);
      return;
    }
    state.replay = {
      id,
      first: body.first_tick,
      last: body.last_tick,
      tickRate: body.tick_rate,
      checkpoints: body.checkpoints,
      tick: body.first_tick,
      playing: false,
      speed: Number($('rp-speed').value),
      inflight: false,
      pending: null,
      verify: null,
      divergence: null,
    };
    const slider = $('rp-slider');
    slider.min = body.first_tick;
    slider.max = body.last_tick;
    slider.value = body.first_tick;
    $('rp-first').textContent = body.first_tick;
    $('rp-last').textContent = body.last_tick;
    $('rp-verify-status').textContent = '';
    $('rp-verify-status').className = '';
    $('inspector').hidden = false;
    await showTick(body.first_tick);
  }

  function closeReplay() {
    const r = state.replay;
    if (r === null) return;
    r.playing = false;
    if (r.verify !== null) r.verify.close();
    state.replay = null;
    state.highlight = new Set();
    $('inspector').hidden = true;
    $('divergence').hidden = true;
    $('rp-play').textContent = 'Play';
  }

  // Shows the re-simulated frame of `tick`; while one is on its way the
  // newest tick asked for waits (a slider dragged fast skips ticks).
  async function showTick(tick) {
    const r = state.replay;
    if (r === null) return;
    tick = Math.max(r.first, Math.min(r.last, Math.round(tick)));
    r.tick = tick;
    $('rp-tick').textContent = tick;
    $('rp-slider').value = tick;
    if (r.inflight) {
      r.pending = tick;
      return;
    }
    r.inflight = true;
    try {
      const aabbs = $('show-aabbs').checked ? '&aabbs=1' : '';
      const res = await fetch(
        `/api/recordings/${encodeURIComponent(r.id)}/frame?tick=${tick}${aabbs}`,
        { cache: 'no-store' });
      const frame = await res.json().catch(() => ({ error: res.statusText }));
      if (state.replay !== r) return;
      if (!res.ok) {
        showMessage(frame.error);
      } else {
        state.frame = frame;
        state.lastTick = frame.tick;
        state.framesReceived++;
        showStatus(frame);
        queueRedraw();
      }
    } finally {
      r.inflight = false;
    }
    if (r.pending !== null && state.replay === r) {
      const next = r.pending;
      r.pending = null;
      if (next !== r.tick || next !== state.lastTick) await showTick(next);
    }
  }

  function setPlaying(playing) {
    const r = state.replay;
    if (r === null) return;
    r.playing = playing;
    $('rp-play').textContent = playing ? 'Pause' : 'Play';
    if (!playing) return;
    if (r.tick >= r.last) showTick(r.first);
    // Ticks advance with the clock at tick_rate × speed; a frame that comes
    // late makes the next one skip ahead rather than slow the clock.
    let clockTick = r.tick;
    let then = performance.now();
    const advance = (now) => {
      if (state.replay !== r || !r.playing) return;
      clockTick += ((now - then) / 1000) * r.tickRate * r.speed;
      then = now;
      if (clockTick >= r.last) {
        showTick(r.last);
        setPlaying(false);
        return;
      }
      if (!r.inflight && Math.floor(clockTick) !== r.tick) showTick(Math.floor(clockTick));
      requestAnimationFrame(advance);
    };
    requestAnimationFrame(advance);
  }

  function startVerification() {
    const r = state.replay;
    if (r === null) return;
    if (r.verify !== null) r.verify.close();
    r.divergence = null;
    state.highlight = new Set();
    $('divergence').hidden = true;
    const status = $('rp-verify-status');
    status.className = '';
    status.textContent = 'verifying…';
    const source = new EventSource(`/api/recordings/${encodeURIComponent(r.id)}/verify`);
    r.verify = source;
    source.addEventListener('progress', (event) => {
      const p = JSON.parse(event.data);
      status.textContent = `verifying: ${p.ticks_verified} / ${p.total_ticks} ticks`;
    });
    source.addEventListener('result', (event) => {
      source.close();
      r.verify = null;
      showVerification(r, JSON.parse(event.data));
    });
    source.addEventListener('end', (event) => {
      source.close();
      r.verify = null;
      status.className = 'bad';
      status.textContent = `verification failed: ${JSON.parse(event.data).message}`;
    });
    source.addEventListener('error', () => {
      if (r.verify !== source) return;
      source.close();
      r.verify = null;
      status.className = 'bad';
      status.textContent = 'verification interrupted';
    });
  }

  function showVerification(r, result) {
    const status = $('rp-verify-status');
    state.verifyResult = result;
    if (result.ok) {
      status.className = 'ok';
      status.textContent = `verified: ${result.ticks_verified} ticks, every hash matches`;
      return;
    }
    status.className = 'bad';
    status.textContent = `${result.kind === 'events' ? 'events diverged' : 'diverged'} at tick ${result.tick}`;
    r.divergence = result;
    state.highlight = new Set((result.bodies || []).map((b) => b.index));
    state.fitted = false; // the panel below takes room from the view
    $('dv-message').textContent = result.message;
    const hasFrames = result.recorded_frame !== undefined;
    $('dv-views').hidden = !hasFrames;
    $('dv-bodies').hidden = !hasFrames;
    $('divergence').hidden = false;
    if (hasFrames) {
      $('dv-recorded-caption').textContent =
        `recorded: checkpoint at tick ${result.diff_tick}, hash ${result.recorded_frame.hash}`;
      $('dv-replayed-caption').textContent =
        `re-simulated to tick ${result.diff_tick}, hash ${result.replayed_frame.hash}`;
      showDiffBodies(result.bodies);
      drawDivergence();
    }
    showTick(result.tick);
  }

  function showDiffBodies(bodies) {
    const tbody = $('dv-bodies').tBodies[0];
    tbody.textContent = '';
    const n = (v) => Number(v).toFixed(6);
    const fields = [
      ['type', (b) => BODY_TYPES[b.type] || b.type],
      ['position', (b) => `(${n(b.position[0])}, ${n(b.position[1])})`],
      ['angle', (b) => n(b.angle)],
      ['velocity', (b) => `(${n(b.velocity[0])}, ${n(b.velocity[1])})`],
      ['angular velocity', (b) => n(b.angular_velocity)],
      ['awake', (b) => String(b.awake)],
    ];
    for (const d of bodies) {
      let first = true;
      for (const [name, show] of fields) {
        const rec = show(d.recorded);
        const rep = show(d.replayed);
        const tr = document.createElement('tr');
        tr.dataset.body = d.index;
        const cells = [first ? `body ${d.index}` : '', name, rec, rep];
        cells.forEach((text, i) => {
          const td = document.createElement('td');
          td.textContent = text;
          if (i >= 2 && rec !== rep) td.className = 'differs';
          tr.appendChild(td);
        });
        if (first) tr.title = d.what;
        first = false;
        tbody.appendChild(tr);
      }
    }
  }

  // Both states through one view (fitted to the recorded one), so the eye
  // can compare them.
  function drawDivergence() {
    const r = state.replay;
    if (r === null || r.divergence === null || r.divergence.recorded_frame === undefined) return;
    const rec = r.divergence.recorded_frame;
    const cnv = $('dv-recorded');
    const [x0, y0, x1, y1] = rec.bounds;
    const w = cnv.clientWidth || 400;
    const h = cnv.clientHeight || 240;
    const view = {
      cx: (x0 + x1) / 2,
      cy: (y0 + y1) / 2,
      scale: 0.9 * Math.min(w / Math.max(x1 - x0, 1e-3), h / Math.max(y1 - y0, 1e-3)),
    };
    paintFrame(cnv, cnv.getContext('2d'), rec, view, state.highlight);
    const other = $('dv-replayed');
    paintFrame(other, other.getContext('2d'), r.divergence.replayed_frame, view, state.highlight);
  }

  $('upload').addEventListener('change', () => {
    const file = $('upload').files[0];
    if (file) uploadRecording(file);
  });
  $('rp-play').addEventListener('click', () => {
    if (state.replay !== null) setPlaying(!state.replay.playing);
  });
  $('rp-fwd').addEventListener('click', () => {
    if (state.replay === null) return;
    setPlaying(false);
    showTick(state.replay.tick + 1);
  });
  $('rp-back').addEventListener('click', () => {
    if (state.replay === null) return;
    setPlaying(false);
    showTick(state.replay.tick - 1);
  });
  $('rp-speed').addEventListener('change', () => {
    if (state.replay !== null) state.replay.speed = Number($('rp-speed').value);
  });
  $('rp-slider').addEventListener('input', () => {
    if (state.replay === null) return;
    setPlaying(false);
    showTick(Number($('rp-slider').value));
  });
  $('rp-verify').addEventListener('click', startVerification);

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
  $('show-aabbs').addEventListener('change', () => {
    if (state.replay !== null) {
      showTick(state.replay.tick);
    } else {
      openStream();
    }
  });
  window.addEventListener('resize', () => {
    queueRedraw();
    drawDivergence();
  });

  const params = new URLSearchParams(location.search);
  const wanted = params.get('world');
  const wantedRecording = params.get('recording');
  if (wantedRecording) {
    openRecording(wantedRecording);
  } else if (wanted) {
    selectWorld(wanted);
  }
  refreshWorlds();
  refreshRecordings();
})();
