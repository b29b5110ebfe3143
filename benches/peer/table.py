#!/usr/bin/env python3
"""One table from bansha's figures and the peer's: every figure beside its target."""
import json
import platform
import sys

fig = json.load(open(sys.argv[1]))
peer = json.load(open(sys.argv[2]))
rows = []


def row(what, value, target="", met=None):
    mark = "" if met is None else ("yes" if met else "NO")
    rows.append((what, value, target, mark))


for kind, label in (("desktop", "desktop HTML"), ("api", "API JSON")):
    b = fig["parse"][kind]
    p = peer[kind]
    p_rate = p["pages"] / p["seconds"] if p["seconds"] else 0.0
    ratio = b["pages_per_s"] / p_rate if p_rate else float("inf")
    row(f"parse {label}: bansha", f'{b["pages_per_s"]:,.0f} pages/s, {b["mb_per_s"]:.1f} MB/s')
    row(
        f"parse {label}: Python peer",
        f'{p_rate:,.1f} pages/s, {p["bytes"] / p["seconds"] / 1e6:.2f} MB/s',
    )
    row(f"parse {label}: ratio", f"{ratio:,.0f}x", ">= 50x", ratio >= 50)

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
    "close -> final tally in the mailbox",
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
