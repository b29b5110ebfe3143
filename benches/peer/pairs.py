#!/usr/bin/env python3
"""bansha against each Python peer on the same pages, in alternating pairs.

    pairs.py BANSHA PYTHON PAIRS SECONDS --desktop PAGES... --api PAGES...

For each kind of page and each peer (`parse_peer.py`: bs4, selectolax, selectolax-cut), PAIRS
pairs of runs, each pair `bansha posts` then the peer (the order flipped every other pair), each
run a child process reading the pages repeated to about SECONDS of work. A run's time is its
wall time less the same program's start-up (the run with no pages repeated); its peak memory is
the child's own (its VmHWM while it runs). Each pair gives a ratio (the peer's seconds per page over
bansha's); the median is reported with the spread. Before timing, each peer's posts are checked
against bansha's, field by field (pid, author, uid, floor, time; text with whitespace squeezed).
Prints one JSON object.
"""
import atexit
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = ["bs4", "selectolax", "selectolax-cut"]


def hwm_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


# The pages, linked under short names in a directory of their own: a run names a page once per
# repetition, and at bansha's speed a few seconds of pages with their full paths would pass the
# kernel's limit on a command line. The children run in that directory.
PAGES = tempfile.mkdtemp(prefix="bansha-pairs-")
atexit.register(shutil.rmtree, PAGES, True)
# The most pages one command line names (a name and its pointer are ~12 bytes; the limit
# is ~2 MB).
MAX_ARGS = 100_000


def short_names(kind, files):
    names = []
    for i, f in enumerate(files):
        name = f"{kind[0]}{i}"
        os.symlink(os.path.abspath(f), os.path.join(PAGES, name))
        names.append(name)
    return names


def run(cmd):
    """Wall seconds and the child's own peak RSS in MB: its VmHWM, read from /proc while it
    runs (wait4's ru_maxrss would include this driver's, which a spawned child inherits)."""
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=PAGES)
    peak = 0
    while p.poll() is None:
        peak = max(peak, hwm_kb(p.pid))
        time.sleep(0.002)
    elapsed = time.perf_counter() - start
    if p.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd[:4])} …")
    return elapsed, peak / 1024.0


def bansha_cmd(bansha, files, repeat):
    return [bansha, "posts", *(files * repeat)]


def peer_cmd(python, peer, kind, files, repeat):
    return [python, os.path.join(HERE, "parse_peer.py"), peer, kind, str(repeat), *files]


def output(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, cwd=PAGES).stdout.decode()


def squash(s):
    return " ".join((s or "").split())


def compare(kind, ours, theirs):
    """Fields equal per post, bansha's posts keyed by pid."""
    mine = {}
    for line in ours.splitlines():
        p = json.loads(line)
        t = p.get("posted_at")
        if t is not None:
            dt = datetime.datetime.fromisoformat(t)
            t = int(dt.timestamp()) if kind == "api" else dt.strftime("%Y-%m-%d %H:%M:%S")
        mine[p["pid"]] = {
            "author": p["author"],
            "uid": p["author_uid"] or (0 if kind == "api" else None),
            "floor": p["floor"] if kind == "desktop" else str(p["number"]) if p["number"] else None,
            "time": t,
            "text": squash(p["text"]),
        }
    equal = {k: 0 for k in ("author", "uid", "floor", "time", "text")}
    posts = 0
    for line in theirs.splitlines():
        q = json.loads(line)
        m = mine.get(q["pid"])
        if m is None:
            continue
        posts += 1
        q["text"] = squash(q["text"])
        if isinstance(q["time"], str) and len(q["time"]) == 16:
            q["time"] += ":00"
        for k in equal:
            if m[k] == q[k]:
                equal[k] += 1
    return {"posts": posts, "bansha_posts": len(mine), "equal": equal}


def main():
    bansha, python, pairs, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    # The children run in the pages' directory.
    bansha, python = os.path.abspath(bansha), os.path.abspath(python)
    args = sys.argv[5:]
    d = args.index("--desktop")
    a = args.index("--api")
    kinds = {"desktop": args[d + 1 : a], "api": args[a + 1 :]}
    out = {}
    for kind, files in kinds.items():
        files = short_names(kind, files)
        ours = output(bansha_cmd(bansha, files, 1))
        out[kind] = {"pages": len(files), "peers": {}}
        # Start-up of each program, to take off every run.
        start_b = min(run(bansha_cmd(bansha, files, 0)[:2] + [files[0]])[0] for _ in range(3))
        one_b = max(min(run(bansha_cmd(bansha, files, 1))[0] for _ in range(3)) - start_b, 1e-4)
        rep_b = max(1, min(round(seconds / one_b), MAX_ARGS // len(files)))
        for peer in PEERS:
            check = compare(kind, ours, output(peer_cmd(python, peer, kind, files, 1)))
            start_p = min(run(peer_cmd(python, peer, kind, files, 0))[0] for _ in range(3))
            one_p = max(run(peer_cmd(python, peer, kind, files, 1))[0] - start_p, 1e-4)
            rep_p = max(1, min(round(seconds / one_p), MAX_ARGS // len(files)))
            ratios, b_rates, p_rates, b_rss, p_rss = [], [], [], [], []
            for i in range(pairs):
                order = ["b", "p"] if i % 2 == 0 else ["p", "b"]
                got = {}
                for who in order:
                    if who == "b":
                        t, rss = run(bansha_cmd(bansha, files, rep_b))
                        got["b"] = (max(t - start_b, 1e-6) / (rep_b * len(files)), rss)
                    else:
                        t, rss = run(peer_cmd(python, peer, kind, files, rep_p))
                        got["p"] = (max(t - start_p, 1e-6) / (rep_p * len(files)), rss)
                ratios.append(got["p"][0] / got["b"][0])
                b_rates.append(1 / got["b"][0])
                p_rates.append(1 / got["p"][0])
                b_rss.append(got["b"][1])
                p_rss.append(got["p"][1])
            out[kind]["peers"][peer] = {
                "ratios": ratios,
                "ratio_median": statistics.median(ratios),
                "bansha_pages_per_s": statistics.median(b_rates),
                "peer_pages_per_s": statistics.median(p_rates),
                "bansha_peak_rss_mb": max(b_rss),
                "peer_peak_rss_mb": max(p_rss),
                "bansha_pages_per_run": rep_b * len(files),
                "peer_pages_per_run": rep_p * len(files),
                "check": check,
            }
            print(
                f"  {kind} vs {peer}: {statistics.median(ratios):.1f}x "
                f"({', '.join(f'{r:.1f}' for r in ratios)})",
                file=sys.stderr,
            )
    print(json.dumps(out))


if __name__ == "__main__":
    main()
