// Browser test of the replay inspector (ctest Web.ReplayInspectorInChromium):
// a real atoll-server with --data_dir and --http_listen, a world played by
// the real `atoll bot`, and Debian's chromium driven by playwright-core.
//
//   node replay_inspector_test.mjs ATOLL_SERVER ATOLL ARENA_SCENE [SCREENSHOT.png]
//
// Checks: the data dir's recording is listed and opens in the inspector;
// scrubbing the slider shows that tick with the recorded hash; one step
// forward and one back; playing advances the tick; verification in the page
// says ok. Then the same recording with one impulse changed (edited here, in
// the file's own framing) is uploaded from the page: verification shows the
// divergent tick, the side-by-side states and the pushed body among the
// differing bodies, highlighted; `atoll view` on that file prints a URL that
// opens it in the inspector, which finds the same divergence. Exit 0 on
// success, 77 (skipped) without chromium.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { join } from 'node:path';

import { CHROMIUM, SKIP, check, fail, loadPlaywright, runAtoll, sleep, startServer }
  from './harness.mjs';

const [serverBin, atollBin, arenaScene, screenshot] = process.argv.slice(2);
const atoll = (...args) => runAtoll(atollBin, ...args);

// `atoll view FILE` on a free port; resolves with the URL it prints.
function startView(file) {
  return new Promise((resolve, reject) => {
    const child = spawn(atollBin, ['view', file, '--listen=127.0.0.1:0'],
                        { stdio: ['ignore', 'pipe', 'inherit'] });
    const timer = setTimeout(() => reject(new Error('atoll view did not start')), 10000);
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = line.match(/^open (\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1] });
      }
    });
    child.on('exit', (code) => reject(new Error(`atoll view exited with ${code}`)));
  });
}


// ---- the recording file, edited in place (docs/recording.md) --------------
// "ATOLLREC" + u32 version, then records [u32 length][u8 type][u64 FNV-1a of
// type and payload][payload], little-endian; payloads are protobuf.

function fnv1a(type, payload) {
  const prime = 1099511628211n;
  const mask = (1n << 64n) - 1n;
  let h = 1469598103934665603n;
  h = ((h ^ BigInt(type)) * prime) & mask;
  for (const b of payload) h = ((h ^ BigInt(b)) * prime) & mask;
  return h;
}

function varint(buf, pos) {
  let v = 0;
  let shift = 0;
  for (;;) {
    const b = buf[pos++];
    v += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) return [v, pos];
    shift += 7;
  }
}

// The first field `number` of the message in buf[start, end): its value's
// [start, end) and wire type, or null.
function field(buf, start, end, number) {
  let pos = start;
  while (pos < end) {
    let tag;
    [tag, pos] = varint(buf, pos);
    const wire = tag & 7;
    let valueStart = pos;
    let valueEnd;
    if (wire === 0) {
      [, valueEnd] = varint(buf, pos);
    } else if (wire === 1) {
      valueEnd = pos + 8;
    } else if (wire === 5) {
      valueEnd = pos + 4;
    } else if (wire === 2) {
      let length;
      [length, valueStart] = varint(buf, pos);
      valueEnd = valueStart + length;
    } else {
      return null;
    }
    if (tag >>> 3 === number) return { start: valueStart, end: valueEnd, wire };
    pos = valueEnd;
  }
  return null;
}

// The length of the file's leading whole records (a live world's file may
// end in a half-written one).
function wholeRecords(buf) {
  let pos = 12;
  while (pos + 13 <= buf.length && pos + 13 + buf.readUInt32LE(pos) <= buf.length) {
    pos += 13 + buf.readUInt32LE(pos);
  }
  return pos;
}

// Adds 3 to the impulse x of the first input (RecordedTick.inputs[0].
// commands[0].apply_impulse.impulse.x) of the first tick record at or after
// tick 150 that has one; returns the edited file, the tick and the body.
function tamper(bytes) {
  const buf = Buffer.from(bytes);
  let pos = 12;
  while (pos + 13 <= buf.length) {
    const length = buf.readUInt32LE(pos);
    const type = buf[pos + 4];
    const payloadStart = pos + 13;
    const payloadEnd = payloadStart + length;
    if (payloadEnd > buf.length) break;
    if (type === 3) {
      const tickField = field(buf, payloadStart, payloadEnd, 1);
      const tick = tickField === null ? 0 : varint(buf, tickField.start)[0];
      const input = field(buf, payloadStart, payloadEnd, 2);
      const command = input && field(buf, input.start, input.end, 5);
      const impulse = command && field(buf, command.start, command.end, 2);
      const vector = impulse && field(buf, impulse.start, impulse.end, 2);
      const x = vector && field(buf, vector.start, vector.end, 1);
      if (tick >= 150 && x !== null && x.wire === 5) {
        const ref = field(buf, impulse.start, impulse.end, 1);
        const index = ref && field(buf, ref.start, ref.end, 1);
        const body = index === null ? 0 : varint(buf, index.start)[0];
        buf.writeFloatLE(buf.readFloatLE(x.start) + 3, x.start);
        buf.writeBigUInt64LE(fnv1a(type, buf.subarray(payloadStart, payloadEnd)), pos + 5);
        return { bytes: buf.subarray(0, wholeRecords(buf)), tick, body };
      }
    }
    pos = payloadEnd;
  }
  return fail('no input at or after tick 150 in the recording');
}

async function main() {
  if (!existsSync(CHROMIUM)) {
    console.log(`SKIP: ${CHROMIUM} is not installed (apt-get install chromium)`);
    return SKIP;
  }
  const { chromium } = await loadPlaywright();
  const dir = mkdtempSync(join(tmpdir(), 'atoll-replay-'));
  const server = await startServer(serverBin, [`--data_dir=${join(dir, 'data')}`]);
  let browser;
  let view;
  try {
    // One player pushing its circle around for 300 ticks at 240 Hz.
    const created = atoll('create', arenaScene, '--id=taped', '--slots=4', '--tick_rate=240',
                          `--server=${server.grpc}`);
    const token = created.match(/^slot 1 token (\S+)/m)[1];
    atoll('bot', 'taped', `--server=${server.grpc}`, `--tokens=${token}`, '--ticks=300');

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (e) => fail(`page error: ${e.message}`));
    await page.goto(server.http);

    // The data dir's recording is listed; open it.
    await page.waitForSelector('#recordings tbody tr[data-recording="taped"]', { timeout: 5000 });
    check(true, 'the recording list shows the data dir\'s taped.atrec');
    await page.click('#recordings tbody tr[data-recording="taped"]');
    await page.waitForFunction(() => window.atollViewer.replay !== null &&
                               window.atollViewer.frame !== null, null, { timeout: 10000 });
    const range = await page.evaluate(() => ({
      first: window.atollViewer.replay.first, last: window.atollViewer.replay.last }));
    check(range.last >= 280, `the inspector opens ticks ${range.first}..${range.last}`);

    // Scrub to tick 200: that tick, with the recorded hash.
    const atTick = (t) => page.waitForFunction(
      (want) => window.atollViewer.frame !== null && window.atollViewer.frame.tick === want,
      t, { timeout: 10000 });
    await page.$eval('#rp-slider', (s) => {
      s.value = '200';
      s.dispatchEvent(new Event('input'));
    });
    await atTick(200);
    check(await page.evaluate(() => window.atollViewer.frame.hash_matches),
          'scrubbed to tick 200: its hash is the recorded one');
    check(Number(await page.textContent('#tick')) === 200, 'the status line shows tick 200');
    await page.click('#rp-fwd');
    await atTick(201);
    await page.click('#rp-back');
    await page.click('#rp-back');
    await atTick(199);
    check(await page.evaluate(() => window.atollViewer.frame.hash_matches),
          'stepped forward to 201 and back to 199 (re-simulated from a checkpoint)');
    await page.selectOption('#rp-speed', '8');
    await page.click('#rp-play');
    await page.waitForFunction(() => window.atollViewer.frame.tick > 230, null, { timeout: 10000 });
    await page.click('#rp-play');
    check(true, 'playing at 8x advances the tick');

    await page.click('#rp-verify');
    await page.waitForSelector('#rp-verify-status.ok', { timeout: 30000 });
    check(true, `verification in the page: ${await page.textContent('#rp-verify-status')}`);

    // The same recording with one impulse changed, uploaded from the page.
    const edited = tamper(readFileSync(join(dir, 'data', 'worlds', 'taped.atrec')));
    const badPath = join(dir, 'tampered.atrec');
    writeFileSync(badPath, edited.bytes);
    await page.setInputFiles('#upload', badPath);
    await page.waitForFunction(() => window.atollViewer.replay !== null &&
                               window.atollViewer.replay.id.startsWith('upload-'),
                               null, { timeout: 10000 });
    check(true, `the tampered recording (tick ${edited.tick}, body ${edited.body}) is uploaded`);
    await page.click('#rp-verify');
    await page.waitForSelector('#rp-verify-status.bad', { timeout: 30000 });
    const verdict = await page.textContent('#rp-verify-status');
    check(verdict.includes(`diverged at tick ${edited.tick}`),
          `verification shows the divergent tick (${verdict})`);
    await page.waitForSelector('#divergence:not([hidden])', { timeout: 5000 });
    const message = await page.textContent('#dv-message');
    check(message.includes('checkpoint'), `the panel says where the states are compared (${message})`);
    const row = await page.$(`#dv-bodies tr[data-body="${edited.body}"]`);
    check(row !== null, `the pushed body ${edited.body} is listed among the differing bodies`);
    check(await page.evaluate((b) => window.atollViewer.highlight.has(b), edited.body),
          `body ${edited.body} is highlighted`);
    const drawn = await page.evaluate(() => {
      const count = (id) => {
        const c = document.getElementById(id);
        const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) n++;
        return n;
      };
      return [count('dv-recorded'), count('dv-replayed')];
    });
    check(drawn[0] > 500 && drawn[1] > 500,
          `the recorded and re-simulated states are drawn side by side (${drawn})`);
    await atTick(edited.tick);
    check(!(await page.evaluate(() => window.atollViewer.frame.hash_matches)),
          'the main view jumps to the divergent tick, whose hash differs');
    if (screenshot) {
      await page.screenshot({ path: screenshot });
      console.log(`screenshot: ${screenshot}`);
    }

    // `atoll view FILE.atrec`: the printed URL opens the inspector on it.
    view = await startView(badPath);
    await page.goto(view.url);
    await page.waitForFunction(() => window.atollViewer.replay !== null &&
                               window.atollViewer.frame !== null, null, { timeout: 10000 });
    check(await page.evaluate(() => window.atollViewer.world === null),
          `atoll view's URL (${view.url}) opens the recording in the inspector`);
    await page.click('#rp-verify');
    await page.waitForSelector('#rp-verify-status.bad', { timeout: 30000 });
    check((await page.textContent('#rp-verify-status')).includes(`tick ${edited.tick}`),
          'atoll view\'s inspector finds the same divergence');
    return 0;
  } finally {
    if (browser) await browser.close();
    if (view) view.child.kill('SIGTERM');
    server.child.kill('SIGTERM');
    await sleep(200);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then((code) => { process.exitCode = code; },
            (e) => { console.error(e.stack || e.message); process.exitCode = 1; });
