// Browser test of the web viewer (ctest Web.ViewerInChromium): a real
// atoll-server with --http_listen, worlds made with the real `atoll create`,
// and Debian's chromium driven by playwright-core (no browser download).
//
//   node viewer_test.mjs ATOLL_SERVER ATOLL [SCREENSHOT.png]
//
// Checks: the world list shows the created worlds; picking one draws the
// canvas (non-blank pixels) and advances the tick; the canvas changes while
// the world is awake and stops changing once it sleeps; hovering a body shows
// a tooltip with its id. Reports (does not assert) the time to draw a
// 5 000-body frame. Exit 0 on success, 77 (skipped) without chromium.

import { existsSync } from 'node:fs';

import { CHROMIUM, SKIP, check, fail, loadPlaywright, runAtoll, sleep, startServer }
  from './harness.mjs';

const [serverBin, atollBin, screenshot] = process.argv.slice(2);
const atoll = (...args) => runAtoll(atollBin, ...args);

async function main() {
  if (!existsSync(CHROMIUM)) {
    console.log(`SKIP: ${CHROMIUM} is not installed (apt-get install chromium)`);
    return SKIP;
  }
  const { chromium } = await loadPlaywright();
  const server = await startServer(serverBin);
  let browser;
  try {
    // busy: a drum turning forever; calm: a small pyramid that falls asleep.
    atoll('create', 'tumbler', '--size=6', '--id=busy', `--server=${server.grpc}`);
    atoll('create', 'pyramid', '--size=4', '--id=calm', `--server=${server.grpc}`);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    const page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
    page.on('pageerror', (e) => fail(`page error: ${e.message}`));
    await page.goto(server.http);

    // The world list names both worlds.
    await page.waitForSelector('#worlds tbody tr[data-world="busy"]', { timeout: 5000 });
    await page.waitForSelector('#worlds tbody tr[data-world="calm"]', { timeout: 5000 });
    check(true, 'the world list shows the created worlds busy and calm');

    // Pick busy: the canvas gets drawn and the tick advances.
    await page.click('#worlds tbody tr[data-world="busy"]');
    await page.waitForFunction(() => window.atollViewer.framesDrawn > 5, null, { timeout: 10000 });
    const painted = await page.evaluate(() => {
      const c = document.getElementById('canvas');
      const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) n++;
      return n;
    });
    check(painted > 1000, `the canvas is drawn (${painted} non-blank pixels)`);
    const tick1 = Number(await page.textContent('#tick'));
    const canvas1 = await page.evaluate(() => document.getElementById('canvas').toDataURL());
    await sleep(600);
    const tick2 = Number(await page.textContent('#tick'));
    const canvas2 = await page.evaluate(() => document.getElementById('canvas').toDataURL());
    check(tick2 > tick1, `the tick advances on screen (${tick1} -> ${tick2})`);
    check(canvas1 !== canvas2, 'the canvas changes while the world is awake');
    check(/^[0-9a-f]{16}$/.test(await page.textContent('#hash')), 'the state hash is shown');

    // Pick calm, wait for it to sleep: the canvas stops changing.
    await page.click('#worlds tbody tr[data-world="calm"]');
    await page.waitForFunction(
      () => window.atollViewer.frame !== null && window.atollViewer.frame.world === 'calm' &&
            window.atollViewer.frame.counters.awake_bodies === 0,
      null, { timeout: 20000 });
    await sleep(300);
    const still1 = await page.evaluate(() => document.getElementById('canvas').toDataURL());
    const tickA = Number(await page.textContent('#tick'));
    await sleep(600);
    const still2 = await page.evaluate(() => document.getElementById('canvas').toDataURL());
    const tickB = Number(await page.textContent('#tick'));
    check(tickB > tickA, `the asleep world still ticks (${tickA} -> ${tickB})`);
    check(still1 === still2, 'the canvas stops changing once the world sleeps');

    // Hover the top box of the pyramid: the tooltip names its id.
    const target = await page.evaluate(() => {
      const s = window.atollViewer;
      const c = document.getElementById('canvas');
      const r = c.getBoundingClientRect();
      const dynamic = s.frame.bodies.filter((b) => b[3] === 2);
      const top = dynamic.reduce((a, b) => (b[6] > a[6] ? b : a));
      const x = (top[12] + top[14]) / 2;
      const y = (top[13] + top[15]) / 2;
      return {
        id: `${top[0]}:${top[1]}`,
        x: r.left + c.clientWidth / 2 + (x - s.view.cx) * s.view.scale,
        y: r.top + c.clientHeight / 2 - (y - s.view.cy) * s.view.scale,
      };
    });
    await page.mouse.move(target.x, target.y);
    await page.waitForSelector('#tooltip:not([hidden])', { timeout: 5000 });
    const tip = await page.textContent('#tooltip');
    check(tip.includes(`body ${target.id}`), `hovering shows the body's id (${tip.split('\n')[0]})`);
    check(tip.includes('mass') && tip.includes('velocity') && tip.includes('owner'),
          'the tooltip lists owner, velocity and mass');
    if (screenshot) {
      await page.screenshot({ path: screenshot });
      console.log(`screenshot: ${screenshot}`);
    }

    // Pause holds the view.
    await page.click('#pause');
    const pausedTick = Number(await page.textContent('#tick'));
    await sleep(400);
    check(Number(await page.textContent('#tick')) === pausedTick, 'pause holds the view');
    await page.click('#pause');

    // Report only: drawing a 5 000-body frame.
    atoll('create', 'large_pyramid', '--size=100', '--id=big', `--server=${server.grpc}`);
    await page.mouse.move(1, 1);
    await page.click('#worlds tbody tr[data-world="big"]', { timeout: 5000 }).catch(() => {});
    try {
      await page.waitForFunction(
        () => window.atollViewer.frame !== null && window.atollViewer.frame.world === 'big' &&
              window.atollViewer.framesDrawn > 0,
        null, { timeout: 15000 });
      // As the page opens (contacts hidden, as Box2D's samples start), then
      // with the contact points and normals shown.
      for (const view of ['default view', 'contacts shown']) {
        if (view === 'contacts shown') await page.click('#show-contacts');
        await page.evaluate(() => { window.atollViewer.drawTimes = []; });
        await sleep(2000);
        const r = await page.evaluate(() => ({
          bodies: window.atollViewer.frame.counters.bodies,
          times: window.atollViewer.drawTimes.slice().sort((a, b) => a - b),
        }));
        const median = r.times.length > 0 ? r.times[r.times.length >> 1] : NaN;
        const worst = r.times.length > 0 ? r.times[r.times.length - 1] : NaN;
        console.log(`report: ${r.bodies}-body frame drawn in ${median.toFixed(1)} ms (median), ` +
                    `${view} (worst ${worst.toFixed(1)} ms over ${r.times.length} frames in 2 s)`);
      }
    } catch (e) {
      console.log(`report: no 5 000-body measurement (${e.message.split('\n')[0]})`);
    }
    return 0;
  } finally {
    if (browser) await browser.close();
    server.child.kill('SIGTERM');
  }
}

main().then((code) => { process.exitCode = code; },
            (e) => { console.error(e.stack || e.message); process.exitCode = 1; });
