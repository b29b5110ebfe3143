#!/usr/bin/env python3
"""One table from bansha's figures and the peers' pairs: every figure beside its target."""
import json
import platform
import sys

fig = json.load(open(sys.argv[1]))
pairs = json.load(open(sys.argv[2]))
rows = []


def row(what, value, target="", met=None):
    mark = "" if met is None else ("yes" if met else "NO")
    rows.append((what, value, target, mark))


# Parsing: bansha against each peer, in alternating pairs of child processes (pairs.py).
TARGETS = {("desktop", "selectolax-cut"): 10, ("desktop", "selectolax"): 10, ("api", "selectolax"): 5}
NAMES = {"bs4": "BeautifulSoup+lxml", "selectolax": "selectolax (whole DOM)", "selectolax-cut": "selectolax, page cut at landmarks"}
for kind, label in (("desktop", "desktop pages -> posts"), ("api", "API v1 pages -> posts")):
    b = fig["parse"][kind]
    row(f"{label}: bansha in-process", f'{b["pages_per_s"]:,.0f} pages/s, {b["mb_per_s"]:.1f} MB/s')
    for peer, x in pairs[kind]["peers"].items():
        target = TARGETS.get((kind, peer))
        spread = ", ".join(f"{r:.1f}" for r in x["ratios"])
        c = x["check"]
        same = min(c["equal"][k] for k in ("author", "uid", "floor", "time"))
        row(
            f"{label}: vs {NAMES[peer]}",
            f'{x["ratio_median"]:.1f}x (pairs {spread}); bansha {x["bansha_pages_per_s"]:,.0f} pages/s, '
            f'{x["bansha_peak_rss_mb"]:.0f} MB; peer {x["peer_pages_per_s"]:,.0f} pages/s, {x["peer_peak_rss_mb"]:.0f} MB; '
            f'fields equal {same}/{c["posts"]} posts (text {c["equal"]["text"]})',
            f">= {target}x" if target else "",
            x["ratio_median"] >= target if target else None,
        )

for name, t in fig["tally"].items():
    row(
        f"tally 10,000 ballots ({name})",
        f'{t["median_ms"]:.1f} ms ({t["ballots_per_s"]:,.0f} ballots/s)',
    )
w = fig["wordcount"]
row("word count, long Chinese text", f'{w["mb_per_s"]:.0f} MB/s ({w["bytes"] / 1e6:.1f} MB)')

for r in fig["poll_cost"]:
    row(
        f'poll cycle, {r["thread_pages"]}-page thread (ppp {r["ppp"]}), k={r["k"]} new',
        f'{r["requests_per_cycle_max"]} requests, {r["bytes_per_cycle_mean"] / 1024:.0f} KiB, {r["cycle_ms_mean"]:.0f} ms',
        f'<= {r["target_requests"]} requests',
        r["met"],
    )
seen = set()
for r in fig["poll_cost"]:
    if r["ppp"] in seen:
        continue
    seen.add(r["ppp"])
    row(
        f'full re-scan, {r["thread_pages"]}-page thread (ppp {r["ppp"]})',
        f'{r["full_scan_requests"]} requests, {r["full_scan_bytes"] / 1e6:.1f} MB, {r["full_scan_ms"] / 1000:.1f} s',
    )

lat = fig["latency"]
b = lat["ballot_to_tally"]
row(
    "new ballot -> interim tally",
    f'next poll (<= {b["interval_s"]} s) + {b["cycle_ms_mean"]:.0f} ms cycle',
    "within one poll interval",
    b["met"],
)
c = lat["close_to_mailbox_s"]
row(
    f'close -> final tally in the mailbox ({lat.get("close_thread_pages", "?")}-page thread, gap {lat.get("close_gap_ms", 0)} ms)',
    "never" if c is None else f"{c:.1f} s",
    f'<= {lat["close_target_s"]} s',
    lat["close_met"],
)
s = fig["scale"]
row(
    f'whole game: {s["players"]} players, {s["days"]} days, {s["posts"]:,} posts ({s["commands"]} offline commands)',
    f'{s["wall_s"]:.2f} s, peak RSS {s["peak_rss_mb"]:.0f} MB',
    f'<= {s["target_wall_s"]:.0f} s, <= {s["target_rss_mb"]:.0f} MB',
    s["met"],
)
k = fig.get("catch_up")
if k:
    row(
        f'the same game caught up by the daemon in one process ({k["posts"]:,} posts, {k["mails"]} mails)',
        f'{k["wall_s"]:.2f} s, peak RSS {k["peak_rss_mb"]:.0f} MB',
        f'<= {k["target_wall_s"]:.0f} s',
        k["met"],
    )
i = fig["idle"]
row(
    f'daemon idle, {i["games"]} games, {i["window_s"]} s',
    f'RSS {i["rss_mb_max"]:.1f} MB, CPU {i["cpu_percent"]:.2f}%',
    f'<= {i["target_rss_mb"]:.0f} MB, ~0% CPU',
    i["met"],
)

widths = [max(len(r[k]) for r in rows + [("figure", "measured", "target", "met")]) for k in range(4)]
print(f"bansha benchmarks on {platform.machine()}, {platform.system()} (Python {platform.python_version()} peer)")
head = ("figure", "measured", "target", "met")
print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
print("  ".join("-" * w for w in widths))
for r in rows:
    print("  ".join(v.ljust(w) for v, w in zip(r, widths)))
