#!/usr/bin/env python3
"""The peer: what a judge's Python script does today (requests + BeautifulSoup), on the same
captured pages bansha's parse benchmark reads. Each page becomes a list of posts with pid,
author, uid, time, floor and the post's own text (quotes taken out), as bansha's parser gives.

    parse_peer.py SECONDS DESKTOP_PAGES... -- API_PAGES...

Prints one JSON object: pages, bytes, posts and seconds per kind.
"""
import json
import re
import sys
import time

from bs4 import BeautifulSoup

PID = re.compile(r"^post_(\d+)$")
UID = re.compile(r"uid=(\d+)")


def desktop(html):
    soup = BeautifulSoup(html, "lxml")
    posts = []
    for div in soup.find_all("div", id=PID):
        pid = PID.match(div["id"]).group(1)
        author = div.select_one("div.authi a.xw1")
        em = div.find("em", id="authorposton" + pid)
        when = None
        if em is not None:
            span = em.find("span", title=True)
            when = span["title"] if span else em.get_text().replace("发表于", "").strip()
        floor = div.find("a", id="postnum" + pid)
        body = div.find("td", id="postmessage_" + pid)
        text = ""
        if body is not None:
            for q in body.select("div.quote, i.pstatus"):
                q.extract()
            text = body.get_text("\n").strip()
        uid = UID.search(author["href"]) if author is not None else None
        posts.append(
            {
                "pid": int(pid),
                "author": author.get_text() if author is not None else None,
                "uid": int(uid.group(1)) if uid else None,
                "time": when,
                "floor": floor.get_text().strip() if floor is not None else None,
                "text": text,
            }
        )
    return posts


def api(raw):
    page = json.loads(raw)
    posts = []
    for p in page["Variables"]["postlist"]:
        body = BeautifulSoup(p.get("message", ""), "lxml")
        for q in body.select("div.reply_wrap, div.quote, blockquote"):
            q.extract()
        posts.append(
            {
                "pid": int(p["pid"]),
                "author": p.get("author"),
                "uid": int(p.get("authorid") or 0),
                "time": int(p.get("dbdateline") or 0),
                "floor": p.get("number"),
                "text": body.get_text("\n").strip(),
            }
        )
    return posts


def measure(parse, files, budget):
    data = []
    for f in files:
        with open(f, "rb") as fh:
            data.append(fh.read())
    if not data:
        return {"pages": 0, "bytes": 0, "posts": 0, "seconds": 0.0}
    pages = posts = size = 0
    start = time.perf_counter()
    while True:
        for d in data:
            raw = d.decode("utf-8", "replace")
            posts += len(parse(raw))
            pages += 1
            size += len(d)
        elapsed = time.perf_counter() - start
        if elapsed >= budget:
            break
    return {"pages": pages, "bytes": size, "posts": posts, "seconds": elapsed}


def main():
    budget = float(sys.argv[1])
    args = sys.argv[2:]
    cut = args.index("--") if "--" in args else len(args)
    out = {
        "desktop": measure(desktop, args[:cut], budget),
        "api": measure(api, args[cut + 1 :], budget),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
