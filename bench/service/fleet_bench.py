#!/usr/bin/env python3
"""Benchmarks of issue 21's fleet goals against the real binaries.

    fleet_bench.py BIN_DIR scrape  [--runs=5]   one /metrics scrape with 64 worlds
    fleet_bench.py BIN_DIR migrate [--runs=5]   a 500-body 60 Hz world moved between two servers
    fleet_bench.py BIN_DIR shards  [--runs=3]   1 000 batch runs: 4 shard processes vs 1 process

BIN_DIR holds atoll-server and atoll (build/release/bin). Each prints CSV on
stdout, a row per run (never the best alone). Benchmarks, not tests: run them
on an idle machine.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request


def start_server(bin_dir, *args):
    """atoll-server on a free loopback port; returns (process, address, metrics_url)."""
    proc = subprocess.Popen([os.path.join(bin_dir, "atoll-server"), "--listen=127.0.0.1:0", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    address = metrics = None
    want_metrics = any(a.startswith("--metrics_listen") for a in args)
    deadline = time.time() + 10
    while time.time() < deadline and (address is None or (want_metrics and metrics is None)):
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith("atoll-server listening on "):
            address = line.split()[-1]
        if line.startswith("atoll-server metrics at "):
            metrics = line.split()[-1]
    if address is None:
        proc.kill()
        sys.exit("fleet_bench: atoll-server did not start")
    return proc, address, metrics


def atoll(bin_dir, *args):
    out = subprocess.run([os.path.join(bin_dir, "atoll"), *args], check=True,
                         capture_output=True, text=True)
    return out.stdout


def scrape(bin_dir, runs):
    """Time of a whole scrape (HTTP request to last byte) with 64 worlds of 55 boxes."""
    server, address, metrics = start_server(bin_dir, "--metrics_listen=127.0.0.1:0",
                                            "--max_worlds=64")
    try:
        for i in range(64):
            atoll(bin_dir, "create", "pyramid", "--size=10", f"--id=w{i}", f"--server={address}")
        time.sleep(2)  # every world has published its gauges
        print("run,worlds,scrapes,median_ms,p99_ms,max_ms,bytes")
        for run in range(1, runs + 1):
            times = []
            size = 0
            for _ in range(200):
                start = time.perf_counter()
                body = urllib.request.urlopen(metrics).read()
                times.append((time.perf_counter() - start) * 1000)
                size = len(body)
            times.sort()
            print(f"{run},64,200,{statistics.median(times):.3f},{times[197]:.3f},"
                  f"{times[-1]:.3f},{size}", flush=True)
    finally:
        server.terminate()
        server.wait()


def migrate(bin_dir, runs):
    """A 496-box pyramid (plus ground) at 60 Hz moved back and forth; a spectator
    (atoll watch) reports how long its stream stood still across each move."""
    a, addr_a, _ = start_server(bin_dir)
    b, addr_b, _ = start_server(bin_dir)
    watch = None
    try:
        atoll(bin_dir, "create", "pyramid", "--size=31", "--id=moving", f"--server={addr_a}")
        # stdbuf: the watch's lines arrive as they are printed, not when a
        # pipe buffer fills.
        watch = subprocess.Popen(["stdbuf", "-oL", os.path.join(bin_dir, "atoll"), "watch",
                                  "moving", "--forever",
                                  "--every=100000", f"--server={addr_a}"],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        watch.stdout.readline()  # "watching moving from tick ..."
        time.sleep(1)
        print("run,from,to,tick,export_bytes,export_ms,import_ms,world_paused_ms,"
              "world_paused_ticks,stream_paused_ms,stream_paused_ticks")
        where = [addr_a, addr_b]
        for run in range(1, runs + 1):
            src, dst = where[(run - 1) % 2], where[run % 2]
            out = atoll(bin_dir, "migrate", "moving", f"--from={src}", f"--to={dst}")
            m = re.search(r"after tick (\d+) .*export ([\d.]+) ms \((\d+) bytes\), import ([\d.]+) ms,"
                          r" the world paused ([\d.]+) ms \(([\d.]+) ticks\)", out)
            if not m:
                sys.exit(f"fleet_bench: unexpected migrate output: {out}")
            stream = None
            while stream is None:
                line = watch.stdout.readline()
                if not line:
                    sys.exit("fleet_bench: atoll watch ended")
                s = re.match(r"stream paused ([\d.]+) ms \(([\d.]+) ticks\)", line)
                if s:
                    stream = s
            print(f"{run},{src},{dst},{m[1]},{m[3]},{m[2]},{m[4]},{m[5]},{m[6]},"
                  f"{stream[1]},{stream[2]}", flush=True)
            time.sleep(2)
    finally:
        if watch:
            watch.kill()
        for p in (a, b):
            p.terminate()
            p.wait()


def shards(bin_dir, runs):
    """1 000 small runs of a sweep (falling_circles at sizes 20 and 50, 300
    steps): one `atoll batch run` process with every
    core against 4 shard processes started together (as 4 Indexed Job pods
    would be on this machine), merged and compared run for run."""
    work = tempfile.mkdtemp()
    try:
        spec = os.path.join(work, "sweep.json")
        with open(spec, "w") as f:
            json.dump({"name": "fleet bench", "builtin": "falling_circles", "sizes": [20, 50],
                       "seeds": list(range(1, 501)), "steps": 300, "tick_rate_hz": 60}, f)
        cores = os.cpu_count()
        print("run,runs,one_process_s,four_shards_s,ratio,same_hashes")
        for run in range(1, runs + 1):
            one = os.path.join(work, f"one{run}")
            start = time.perf_counter()
            atoll(bin_dir, "batch", "run", spec, f"--out={one}", f"--threads={cores}")
            t_one = time.perf_counter() - start
            four = os.path.join(work, f"four{run}")
            start = time.perf_counter()
            procs = [subprocess.Popen([os.path.join(bin_dir, "atoll"), "batch", "run", spec,
                                       f"--out={four}", f"--shard={i}", "--shards=4",
                                       "--threads=1"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                     for i in range(4)]
            if any(p.wait() != 0 for p in procs):
                sys.exit("fleet_bench: a shard failed")
            t_four = time.perf_counter() - start
            atoll(bin_dir, "batch", "merge", one)
            atoll(bin_dir, "batch", "merge", four)
            with open(os.path.join(one, "results.csv")) as f1, \
                    open(os.path.join(four, "results.csv")) as f4:
                rows1 = [r.split(",")[:-3] for r in f1.read().splitlines()]
                rows4 = [r.split(",")[:-3] for r in f4.read().splitlines()]
            print(f"{run},1000,{t_one:.2f},{t_four:.2f},{t_four / t_one:.3f},"
                  f"{'yes' if rows1 == rows4 else 'NO'}", flush=True)
    finally:
        shutil.rmtree(work)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bin_dir")
    parser.add_argument("bench", choices=["scrape", "migrate", "shards"])
    parser.add_argument("--runs", type=int, default=0)
    args = parser.parse_args()
    runs = args.runs or (3 if args.bench == "shards" else 5)
    {"scrape": scrape, "migrate": migrate, "shards": shards}[args.bench](args.bin_dir, runs)


if __name__ == "__main__":
    main()
