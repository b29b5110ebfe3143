#!/usr/bin/env python3
"""The peers: what a judge's Python script does today, on the same captured pages `bansha posts`
reads. Each page becomes posts with pid, author, uid, time, floor and the post's own text
(quotes and the edit notice taken out), as bansha's parser gives, one JSON object a line.

    parse_peer.py PEER KIND REPEAT PAGES...

PEER: `bs4` (requests + BeautifulSoup + lxml, the usual script), `selectolax` (lexbor: a whole
DOM of the page, the fast parser), or `selectolax-cut` (the strongest: the page cut at the
post landmarks as bansha cuts it, regexes for author, uid, time and floor, lexbor for the
bodies alone). KIND: `desktop` or `api` (the API's JSON with lexbor, or bs4, for the bodies).
The pages are read REPEAT times; the posts go to stdout.
"""
import json
import re
import sys

PID = re.compile(r"^post_(\d+)$")
UID = re.compile(r"uid=(\d+)")
POST_START = re.compile(r'<div id="post_\d')
AUTHOR = re.compile(r'<div class="authi"><a href="[^"]*?uid=(\d+)"[^>]*class="xw1">([^<]*)</a>')
FLOOR = re.compile(r'id="postnum(\d+)"[^>]*>(.*?)</a>', re.S)
TIME = re.compile(r'<em id="authorposton\d+">(.*?)</em>', re.S)
TITLE = re.compile(r'title="([^"]+)"')
TAGS = re.compile(r"<[^>]+>")
BODY = re.compile(r'<td class="t_f" id="postmessage_(\d+)">')
TABLE = re.compile(r'<table id="pid(\d+)"')


def post(pid, author, uid, when, floor, text):
    return {"pid": pid, "author": author, "uid": uid, "time": when, "floor": floor, "text": text}


def bs4_desktop(html):
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "lxml")
    out = []
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
        out.append(
            post(
                int(pid),
                author.get_text() if author is not None else None,
                int(uid.group(1)) if uid else None,
                when,
                floor.get_text().strip() if floor is not None else None,
                text,
            )
        )
    return out


def lexbor_text(node):
    for q in node.css("div.quote, i.pstatus"):
        q.decompose()
    return node.text(separator="\n").strip()


def selectolax_desktop(html):
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(html)
    out = []
    for div in tree.css('div[id^="post_"]'):
        m = PID.match(div.attributes.get("id") or "")
        if not m:
            continue
        pid = m.group(1)
        author = div.css_first("div.authi a.xw1")
        em = div.css_first("#authorposton" + pid)
        when = None
        if em is not None:
            span = em.css_first("span[title]")
            when = span.attributes["title"] if span else em.text().replace("发表于", "").strip()
        floor = div.css_first("#postnum" + pid)
        body = div.css_first("#postmessage_" + pid)
        uid = UID.search(author.attributes.get("href") or "") if author is not None else None
        out.append(
            post(
                int(pid),
                author.text() if author is not None else None,
                int(uid.group(1)) if uid else None,
                when,
                floor.text().strip() if floor is not None else None,
                lexbor_text(body) if body is not None else "",
            )
        )
    return out


def td_end(s, start):
    depth, i = 0, start
    while True:
        lt = s.find("<", i)
        if lt < 0:
            return len(s)
        if s.startswith("<td", lt) and not s[lt + 3 : lt + 4].isalnum():
            depth += 1
        elif s.startswith("</td", lt):
            depth -= 1
            if depth == 0:
                return s.find(">", lt) + 1
        i = lt + 1


def selectolax_cut_desktop(html):
    from selectolax.lexbor import LexborHTMLParser

    starts = [m.start() for m in POST_START.finditer(html)]
    out = []
    for i, a in enumerate(starts):
        chunk = html[a : starts[i + 1] if i + 1 < len(starts) else len(html)]
        t = TABLE.search(chunk)
        if not t:
            continue
        pid = int(t.group(1))
        m = BODY.search(chunk)
        au = AUTHOR.search(chunk)
        fl = FLOOR.search(chunk)
        tm = TIME.search(chunk)
        when = None
        if tm:
            t = TITLE.search(tm.group(1))
            when = t.group(1) if t else TAGS.sub("", tm.group(1)).replace("发表于", "").strip()
        body = None
        if m:
            end = td_end(chunk, m.start())
            cell = "<table><tr>" + chunk[m.start() : end] + "</tr></table>"
            body = LexborHTMLParser(cell).css_first("td")
        out.append(
            post(
                pid,
                au.group(2) if au else None,
                int(au.group(1)) if au else None,
                when,
                TAGS.sub("", fl.group(2)).strip() if fl else None,
                lexbor_text(body) if body is not None else "",
            )
        )
    return out


def api(raw, body_text):
    page = json.loads(raw)
    out = []
    for p in page["Variables"]["postlist"]:
        out.append(
            post(
                int(p["pid"]),
                p.get("author"),
                int(p.get("authorid") or 0),
                int(p.get("dbdateline") or 0),
                p.get("number"),
                body_text(p.get("message", "")),
            )
        )
    return out


def bs4_body(html):
    from bs4 import BeautifulSoup

    body = BeautifulSoup(html, "lxml")
    for q in body.select("div.reply_wrap, div.quote, blockquote, i.pstatus"):
        q.extract()
    return body.get_text("\n").strip()


def lexbor_body(html):
    from selectolax.lexbor import LexborHTMLParser

    node = LexborHTMLParser(html).body
    if node is None:
        return ""
    for q in node.css("div.reply_wrap, div.quote, blockquote, i.pstatus"):
        q.decompose()
    return node.text(separator="\n").strip()


PEERS = {
    ("bs4", "desktop"): bs4_desktop,
    ("selectolax", "desktop"): selectolax_desktop,
    ("selectolax-cut", "desktop"): selectolax_cut_desktop,
    ("bs4", "api"): lambda raw: api(raw, bs4_body),
    ("selectolax", "api"): lambda raw: api(raw, lexbor_body),
    ("selectolax-cut", "api"): lambda raw: api(raw, lexbor_body),
}


def main():
    peer, kind, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
    parse = PEERS[(peer, kind)]
    # Imported before the pages are read, so a run of no pages is the start-up.
    if peer == "bs4":
        import bs4  # noqa: F401
        import lxml  # noqa: F401
    else:
        import selectolax.lexbor  # noqa: F401
    data = [open(f, "rb").read().decode("utf-8", "replace") for f in sys.argv[4:]]
    w = sys.stdout.write
    for _ in range(repeat):
        for d in data:
            for p in parse(d):
                w(json.dumps(p, ensure_ascii=False))
                w("\n")


if __name__ == "__main__":
    main()
