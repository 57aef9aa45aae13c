#!/usr/bin/env python3
"""Runs the benchmark; called by Scripts/bench (which installs `time`, builds and sets up the
peer's venv). Standard library only.

For each size: renders (or reuses) the pair, then runs `constant-color fuse` and the peer
alternately, each under /usr/bin/time -v, writing -o, --confidence and --report. Wall time is
measured here around the process (monotonic clock); CPU time (user + sys) and peak resident memory
come from time -v; per-stage timings from each report's timingsSeconds. Prints a table and writes
JSON. It asserts nothing about time: it fails only when a run fails or an output is missing.
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CAMERA = "calibration/synthetic-nikon5100.camera.json"
FLASH = "calibration/synthetic-phosphor-led-yag.flash.json"
PRESET = "200lux-4000K-on"
FULL_SIZES = [(4032, 3024), (2016, 1512)]
SMALL_SIZES = [(600, 400)]


def say(line):
    print(f"bench: {line}", file=sys.stderr, flush=True)


def render_pair(bin_path, width, height, rerender):
    """The pair at .bench/pairs/WxH (uncompressed 16-bit, seed 1), rendered when missing or stale."""
    folder = os.path.join(ROOT, ".bench", "pairs", f"{width}x{height}")
    args = ["synth", "--preset", PRESET, "--out", folder, "--width", str(width), "--height", str(height),
            "--seed", "1", "--compression", "none"]
    stamp = os.path.join(folder, "synth-args.json")
    fresh = (not rerender and all(os.path.exists(os.path.join(folder, f)) for f in ("flash.tif", "ambient.tif"))
             and os.path.exists(stamp) and json.load(open(stamp)) == args)
    if fresh:
        return folder, None
    shutil.rmtree(folder, ignore_errors=True)
    env = dict(os.environ, CONSTANT_COLOR_SPECTRA=os.path.join(ROOT, "fixtures", "spectra"))
    start = time.monotonic()
    subprocess.run([bin_path] + args, check=True, env=env, stdout=subprocess.DEVNULL)
    seconds = time.monotonic() - start
    with open(stamp, "w") as f:
        json.dump(args, f)
    say(f"rendered {width}x{height} in {seconds:.1f} s")
    return folder, seconds


def parse_time_v(path):
    values = {}
    with open(path) as f:
        for line in f:
            key, _, value = line.strip().rpartition(": ")
            values[key] = value
    return {
        "userSeconds": float(values["User time (seconds)"]),
        "systemSeconds": float(values["System time (seconds)"]),
        "peakRSSMiB": int(values["Maximum resident set size (kbytes)"]) / 1024,
        "exitStatus": int(values.get("Exit status", "0")),
    }


def timed(what, command, time_file):
    """Runs `command` under /usr/bin/time -v (exits naming `what` if it fails); returns the wall
    seconds measured around it and /usr/bin/time's measurements."""
    start = time.monotonic()
    proc = subprocess.run(["/usr/bin/time", "-v", "-o", time_file] + command, cwd=ROOT,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - start
    if proc.returncode != 0:
        sys.exit(f"bench: {what} failed (exit {proc.returncode}): {' '.join(command)}\n{proc.stderr.strip()}")
    return wall, parse_time_v(time_file)


def run_once(tool, command, out_dir):
    """One end-to-end run under /usr/bin/time -v; returns the measurements and the report."""
    time_file = os.path.join(out_dir, f"{tool}.time")
    report_path = os.path.join(out_dir, f"{tool}.json")
    for p in (report_path, os.path.join(out_dir, f"{tool}.tif"), os.path.join(out_dir, f"{tool}-confidence.tif")):
        if os.path.exists(p):
            os.remove(p)
    wall, m = timed(tool, command, time_file)
    for p in (os.path.join(out_dir, f"{tool}.tif"), os.path.join(out_dir, f"{tool}-confidence.tif"), report_path):
        if not os.path.getsize(p):
            sys.exit(f"bench: {tool} wrote an empty {p}")
    with open(report_path) as f:
        report = json.load(f)
    return {"wallSeconds": wall, "cpuSeconds": m["userSeconds"] + m["systemSeconds"], **m,
            "stageSeconds": report["timingsSeconds"]}, report


def run_batch(bin_path, flash, ambient, count, out_dir):
    """`fuse-batch` on `count` copies of the pair in one process, under /usr/bin/time -v: what a
    queue of pairs costs per pair when the process and its freed pages are reused (issue 6)."""
    batch_dir = os.path.join(out_dir, "batch")
    shutil.rmtree(batch_dir, ignore_errors=True)
    os.makedirs(batch_dir)
    list_path = os.path.join(out_dir, "batch.tsv")
    with open(list_path, "w") as f:
        for k in range(count):
            f.write(f"{os.path.abspath(flash)}\t{os.path.abspath(ambient)}\tpair{k + 1}\n")
    time_file = os.path.join(out_dir, "batch.time")
    command = [bin_path, "fuse-batch", list_path, "--out-dir", batch_dir, "--camera", CAMERA, "--flash", FLASH,
               "--confidence", "--report"]
    wall, m = timed("fuse-batch", command, time_file)
    for k in range(count):
        for suffix in (".tif", ".confidence.tif", ".report.json"):
            if not os.path.getsize(os.path.join(batch_dir, f"pair{k + 1}{suffix}")):
                sys.exit(f"bench: fuse-batch wrote an empty pair{k + 1}{suffix}")
    return {"pairs": count, "wallSeconds": wall, "wallSecondsPerPair": wall / count,
            "cpuSecondsPerPair": (m["userSeconds"] + m["systemSeconds"]) / count, "peakRSSMiB": m["peakRSSMiB"]}


def summarize(runs):
    def stats(values):
        return {"median": statistics.median(values), "min": min(values), "max": max(values)}
    stages = sorted({k for r in runs for k in r["stageSeconds"]})
    return {
        "wallSeconds": stats([r["wallSeconds"] for r in runs]),
        "cpuSeconds": stats([r["cpuSeconds"] for r in runs]),
        "peakRSSMiB": stats([r["peakRSSMiB"] for r in runs]),
        "stageSecondsMedian": {s: statistics.median([r["stageSeconds"].get(s, 0.0) for r in runs]) for s in stages},
    }


def compare_outputs(python, out_dir):
    """Median |ours - peer| of the 16-bit rendered images and mean |Δ| of the confidence maps, so a
    reader can see that the peer does the same work (not asserted)."""
    code = ("import sys, numpy as np, tifffile; d = sys.argv[1];"
            "a = tifffile.imread(d + '/ours.tif').astype(np.int32); b = tifffile.imread(d + '/peer.tif').astype(np.int32);"
            "ca = tifffile.imread(d + '/ours-confidence.tif'); cb = tifffile.imread(d + '/peer-confidence.tif');"
            "print(float(np.median(np.abs(a - b))), float(np.mean(np.abs(a - b))), float(np.mean(np.abs(ca - cb))))")
    out = subprocess.run([python, "-c", code, out_dir], check=True, stdout=subprocess.PIPE, text=True).stdout.split()
    return {"renderedMedianAbsDiffCodes": float(out[0]), "renderedMeanAbsDiffCodes": float(out[1]),
            "confidenceMeanAbsDiff": float(out[2])}


def registration_error(report, truth_path, width, height):
    """Largest distance (px) between the reported and the true ambient position of the frame's
    corners and centre (synth's truth.json); so that a faster pipeline is seen to stay as accurate."""
    with open(truth_path) as f:
        t = json.load(f)["ambientFromFlash"]["matrix"]
    m = report["registration"]["ambientFromFlash"]

    def apply(a, x, y):
        z = a[2][0] * x + a[2][1] * y + a[2][2]
        return ((a[0][0] * x + a[0][1] * y + a[0][2]) / z, (a[1][0] * x + a[1][1] * y + a[1][2]) / z)
    points = [(0, 0), (width, 0), (0, height), (width, height), (width / 2, height / 2)]
    return max(((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2) ** 0.5
               for p, q in ((apply(m, x, y), apply(t, x, y)) for x, y in points))


def fmt_stat(s, unit="", digits=3):
    return f"{s['median']:.{digits}f}{unit} ({s['min']:.{digits}f}–{s['max']:.{digits}f})"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--python", required=True)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--warmup", type=int, default=1, help="untimed runs of each tool first (page cache)")
    p.add_argument("--small", action="store_true")
    p.add_argument("--json", help="results file (default .bench/results.json, --small: .bench/results-small.json)")
    p.add_argument("--rerender", action="store_true")
    args = p.parse_args()
    sizes = SMALL_SIZES if args.small else FULL_SIZES
    runs = 1 if args.small else args.runs
    warmup = 0 if args.small else args.warmup
    if runs < 1:
        sys.exit("bench: --runs must be at least 1")
    if args.json is None:
        args.json = os.path.join(ROOT, ".bench", "results-small.json" if args.small else "results.json")

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout.strip() != ""
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    results = {"date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
               "commit": commit + ("-dirty" if dirty else ""), "machine": {"cpu": cpu, "cores": os.cpu_count(),
               "system": platform.platform(),
               "swiftFlags": os.environ.get("CONSTANT_COLOR_SWIFT_FLAGS"),
               "loadAverageAtStart": os.getloadavg()}, "runs": runs, "warmupRuns": warmup, "preset": PRESET, "sizes": {}}
    peer = os.path.join("Scripts", "peer", "peer.py")
    for width, height in sizes:
        key = f"{width}x{height}"
        pair, render_seconds = render_pair(args.bin, width, height, args.rerender)
        out_dir = os.path.join(ROOT, ".bench", "out", key)
        os.makedirs(out_dir, exist_ok=True)
        flash, ambient = os.path.join(pair, "flash.tif"), os.path.join(pair, "ambient.tif")

        def command(tool):
            exe = [args.bin, "fuse"] if tool == "ours" else [args.python, peer]
            return exe + [flash, ambient, "--camera", CAMERA, "--flash", FLASH,
                          "-o", os.path.join(out_dir, f"{tool}.tif"),
                          "--confidence", os.path.join(out_dir, f"{tool}-confidence.tif"),
                          "--report", os.path.join(out_dir, f"{tool}.json")]

        measured = {"ours": [], "peer": []}
        reports = {}
        for i in range(warmup + runs):
            for tool in ("ours", "peer") if i % 2 == 0 else ("peer", "ours"):
                m, reports[tool] = run_once(tool, command(tool), out_dir)
                if i >= warmup:
                    measured[tool].append(m)
            say(f"{key} run {i + 1}/{warmup + runs}{' (warm-up)' if i < warmup else ''}: "
                f"ours {measured['ours'][-1]['wallSeconds'] if i >= warmup else m['wallSeconds']:.3f} s")
        # The same pair `runs` times in one process, after the alternating runs (not alternated itself).
        batch = run_batch(args.bin, flash, ambient, runs, out_dir)
        say(f"{key} fuse-batch of {runs}: {batch['wallSecondsPerPair']:.3f} s per pair")
        entry = {"pixels": width * height, "pairFolder": os.path.relpath(pair, ROOT),
                 "oursBatch": batch,
                 "renderSeconds": render_seconds,
                 "ours": {**summarize(measured["ours"]), "runs": measured["ours"]},
                 "peer": {**summarize(measured["peer"]), "runs": measured["peer"]},
                 "agreement": compare_outputs(args.python, out_dir),
                 "meanConfidence": {t: reports[t]["centerWeightedMeanConfidence"] for t in reports},
                 "registrationMaxErrorPx": {t: registration_error(reports[t], os.path.join(pair, "truth.json"),
                                                                   width, height) for t in reports}}
        o, q = entry["ours"], entry["peer"]
        # Each measured iteration ran ours and the peer back to back: the ratio within a pair sees the
        # same state of a shared host, which drifts between pairs.
        paired = [a["wallSeconds"] / b["wallSeconds"] for a, b in zip(measured["ours"], measured["peer"])]
        entry["ratioOursToPeer"] = {
            "wallMedian": o["wallSeconds"]["median"] / q["wallSeconds"]["median"],
            "wallPaired": {"median": statistics.median(paired), "min": min(paired), "max": max(paired)},
            "cpuMedian": o["cpuSeconds"]["median"] / q["cpuSeconds"]["median"],
            "peakRSSMedian": o["peakRSSMiB"]["median"] / q["peakRSSMiB"]["median"],
        }
        results["sizes"][key] = entry

    if not args.small:
        big, small = (f"{w}x{h}" for w, h in FULL_SIZES)
        results["scaling"] = {
            "pixelRatio": results["sizes"][big]["pixels"] / results["sizes"][small]["pixels"],
            **{f"{tool}WallMedian{big}Over{small}": results["sizes"][big][tool]["wallSeconds"]["median"]
               / results["sizes"][small][tool]["wallSeconds"]["median"] for tool in ("ours", "peer")},
            **{f"{tool}CpuMedian{big}Over{small}": results["sizes"][big][tool]["cpuSeconds"]["median"]
               / results["sizes"][small][tool]["cpuSeconds"]["median"] for tool in ("ours", "peer")},
        }

    results["machine"]["loadAverageAtEnd"] = os.getloadavg()
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(results, f, indent=2, sort_keys=True)
    print_table(results)
    say(f"results written to {os.path.relpath(os.path.abspath(args.json), ROOT)}")


def build_flags(flags):
    """The Swift flags Scripts/bench built with (Scripts/swift-flags), as printed."""
    if flags is None:
        return "unknown (--bin given directly, not through Scripts/bench)"
    return flags or "none (portable)"


def print_table(results):
    print(f"\nBenchmark {results['date']} commit {results['commit']}, {results['machine']['cores']} cores "
          f"({results['machine']['cpu']}), {results['runs']} runs after {results['warmupRuns']} warm-up; "
          f"median (min–max); 1-min load average {results['machine']['loadAverageAtStart'][0]:.2f} at start, "
          f"{results['machine']['loadAverageAtEnd'][0]:.2f} at end; build flags: "
          f"{build_flags(results['machine']['swiftFlags'])}\n")
    print("| size | tool | wall s | CPU s (user+sys) | peak RSS MiB |")
    print("| --- | --- | --- | --- | --- |")
    for key, e in results["sizes"].items():
        for tool in ("ours", "peer"):
            s = e[tool]
            print(f"| {key} | {tool} | {fmt_stat(s['wallSeconds'])} | {fmt_stat(s['cpuSeconds'], digits=2)} | "
                  f"{fmt_stat(s['peakRSSMiB'], digits=0)} |")
    print("\n| size | ours/peer wall | ours/peer wall, run by run | ours/peer CPU | ours/peer peak RSS "
          "| rendered |Δ| median (mean), 16-bit codes | confidence |Δ| mean | registration error px, ours / peer "
          "| mean confidence, ours / peer |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for key, e in results["sizes"].items():
        r, a, g, c = e["ratioOursToPeer"], e["agreement"], e["registrationMaxErrorPx"], e["meanConfidence"]
        print(f"| {key} | {r['wallMedian']:.2f} | {fmt_stat(r['wallPaired'], digits=2)} | {r['cpuMedian']:.2f} | {r['peakRSSMedian']:.2f} | "
              f"{a['renderedMedianAbsDiffCodes']:.0f} ({a['renderedMeanAbsDiffCodes']:.0f}) | {a['confidenceMeanAbsDiff']:.3f} | "
              f"{g['ours']:.3f} / {g['peer']:.3f} | {c['ours']:.3f} / {c['peer']:.3f} |")
    for key, e in results["sizes"].items():
        b = e["oursBatch"]
        print(f"\n{key}, ours in one process (fuse-batch of {b['pairs']}, after the runs above, not alternated): "
              f"per pair wall {b['wallSecondsPerPair']:.3f} s, CPU {b['cpuSecondsPerPair']:.2f} s, peak RSS {b['peakRSSMiB']:.0f} MiB; "
              f"against ours' median single run {b['wallSecondsPerPair'] / e['ours']['wallSeconds']['median']:.2f}, "
              f"the peer's {b['wallSecondsPerPair'] / e['peer']['wallSeconds']['median']:.2f}")
    if "scaling" in results:
        s = results["scaling"]
        big, small = results["sizes"].keys()
        print(f"\nScaling {big} / {small} ({s['pixelRatio']:.2f}x the pixels): wall median ours "
              f"{s[f'oursWallMedian{big}Over{small}']:.2f}, peer {s[f'peerWallMedian{big}Over{small}']:.2f}; "
              f"CPU median ours {s[f'oursCpuMedian{big}Over{small}']:.2f}, peer {s[f'peerCpuMedian{big}Over{small}']:.2f}")
    # Every stage either tool reports, in pipeline order where known, then the rest.
    known = ["decode", "normalize", "register", "exposureRatio", "darkRoom", "noiseReduction", "noiseReductionWide", "render", "confidence",
             "gapFillAndEncode", "renderAndEncode", "encode"]
    seen = {k for e in results["sizes"].values() for t in ("ours", "peer") for k in e[t]["stageSecondsMedian"]}
    stages = [k for k in known if k in seen] + sorted(seen - set(known) - {"total"}) + ["total"]
    print("\nPer-stage wall seconds (median of the runs, from each tool's report timingsSeconds)\n")
    print("| size | tool | " + " | ".join(stages) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in stages) + " |")
    for key, e in results["sizes"].items():
        for tool in ("ours", "peer"):
            st = e[tool]["stageSecondsMedian"]
            print(f"| {key} | {tool} | " + " | ".join(f"{st[s]:.3f}" if s in st else "–" for s in stages) + " |")
    print()


if __name__ == "__main__":
    main()
