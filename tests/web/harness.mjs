// Shared by the browser tests (viewer_test.mjs, replay_inspector_test.mjs):
// failing and checking, playwright-core from the lockfile, the real
// atoll-server with its viewer, and the real `atoll` CLI.

import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CHROMIUM = '/usr/bin/chromium';
export const SKIP = 77;
const here = dirname(fileURLToPath(import.meta.url));

export function fail(message) {
  console.error(`FAIL: ${message}`);
  process.exitCode = 1;
  throw new Error(message);
}

export function check(condition, message) {
  if (!condition) fail(message);
  console.log(`ok: ${message}`);
}

export async function loadPlaywright() {
  try {
    return await import('playwright-core');
  } catch {
    // Install the locked version (scripts/setup normally has); offline
    // first, from npm's cache.
    console.log('installing playwright-core from tests/web/package-lock.json');
    const npm = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'],
                          { cwd: here, stdio: 'inherit' });
    if (npm.status !== 0) {
      fail('playwright-core is not installed and `npm ci` failed (is the npm registry reachable?)');
    }
    return await import('playwright-core');
  }
}

// atoll-server on free ports with its viewer (and `extraArgs`); resolves
// with { child, grpc, http } once it printed both addresses.
export function startServer(serverBin, extraArgs = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(serverBin,
                        ['--listen=127.0.0.1:0', '--http_listen=127.0.0.1:0', ...extraArgs],
                        { stdio: ['ignore', 'pipe', 'inherit'] });
    const found = {};
    const timer = setTimeout(() => reject(new Error('atoll-server did not start')), 10000);
    createInterface({ input: child.stdout }).on('line', (line) => {
      let m = line.match(/^atoll-server listening on (\S+)/);
      if (m) found.grpc = m[1];
      m = line.match(/^atoll-server viewer at (\S+)/);
      if (m) found.http = m[1];
      if (found.grpc && found.http) {
        clearTimeout(timer);
        resolve({ child, ...found });
      }
    });
    child.on('exit', (code) => reject(new Error(`atoll-server exited with ${code}`)));
  });
}

// Runs the atoll CLI; fails the test unless it exits 0. Returns stdout.
export function runAtoll(atollBin, ...args) {
  const run = spawnSync(atollBin, args, { encoding: 'utf8' });
  if (run.status !== 0) fail(`atoll ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
