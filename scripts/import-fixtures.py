#!/usr/bin/env python3
"""Copy the captured Discuz! pages that bansha's tests use from ../shared/fixtures into
tests/fixtures, with the bodies of <script> elements removed (the tags stay, empty).

Run from the repository root: python3 scripts/import-fixtures.py [SHARED_FIXTURES_DIR]
Bytes are handled as bytes: GBK pages stay GBK. Nothing else is changed.
"""
import pathlib
import re
import shutil
import sys

SRC = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/fixtures")
DST = pathlib.Path("tests/fixtures")

# (forum folder, sub-folders to copy whole)
WANTED = {
    "discuz": ["desktop", "mobile", "errors", "groundtruth", "login", "login_default_captcha_on", "poll", "pm"],
    "discuz-gbk": ["desktop", "mobile", "groundtruth", "login", "extra_stock_settings"],
}
SCRIPT = re.compile(rb"(<script\b[^>]*>).*?(</script\s*>)", re.S | re.I)


def main() -> None:
    copied = 0
    for forum, subdirs in WANTED.items():
        for top in ("README.md", "MANIFEST.json", "VERIFY.txt"):
            if (SRC / forum / top).exists():
                (DST / forum).mkdir(parents=True, exist_ok=True)
                shutil.copyfile(SRC / forum / top, DST / forum / top)
        for sub in subdirs:
            for path in sorted((SRC / forum / sub).rglob("*")):
                if not path.is_file():
                    continue
                out = DST / forum / path.relative_to(SRC / forum)
                out.parent.mkdir(parents=True, exist_ok=True)
                data = path.read_bytes()
                if path.suffix in (".html", ".xml"):
                    data = SCRIPT.sub(rb"\1\2", data)
                out.write_bytes(data)
                copied += 1
    print(f"copied {copied} files into {DST}")


if __name__ == "__main__":
    main()
