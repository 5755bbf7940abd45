#!/usr/bin/env python3
"""Checks that a krl report page is well-formed and self-contained.

Usage: check_html.py PAGE.html

Well-formed: every element that is not void is closed, in order (no
implied closing, which HTML would allow but our writer never relies on).
Self-contained: no <script src>, <link>, <img>, <iframe>, <object>,
<embed>, no src= or href= that leaves the page (only "#..." fragments), no
url( in style, no "@import". Prints one line per problem; exit 1 if any.
"""
import sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
        "meta", "source", "track", "wbr"}
# SVG elements our writer closes with "/>" (html.parser reports them as
# startendtag)
FORBIDDEN = {"script", "link", "img", "iframe", "object", "embed", "base",
             "audio", "video", "source"}


class Check(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.errors = []

    def err(self, msg):
        line, col = self.getpos()
        self.errors.append(f"line {line}:{col}: {msg}")

    def attrs_ok(self, tag, attrs):
        if tag in FORBIDDEN:
            self.err(f"<{tag}> is not allowed in a self-contained report")
        for k, v in attrs:
            v = v or ""
            if k in ("src", "srcset", "xlink:href", "action", "formaction",
                     "poster", "data"):
                self.err(f"<{tag} {k}=...> loads something")
            if k == "href" and not v.startswith("#"):
                self.err(f"<{tag} href={v!r}> leaves the page")
            if k == "style" and ("url(" in v or "@import" in v):
                self.err(f"<{tag} style> fetches: {v!r}")
            if k.startswith("on"):
                self.err(f"<{tag} {k}> is a script")

    def handle_starttag(self, tag, attrs):
        self.attrs_ok(tag, attrs)
        if tag not in VOID:
            self.stack.append((tag, self.getpos()))

    def handle_startendtag(self, tag, attrs):
        self.attrs_ok(tag, attrs)

    def handle_endtag(self, tag):
        if tag in VOID:
            self.err(f"</{tag}> closes a void element")
            return
        if not self.stack:
            self.err(f"</{tag}> with nothing open")
            return
        top, pos = self.stack.pop()
        if top != tag:
            self.err(f"</{tag}> closes <{top}> opened at line {pos[0]}")

    def handle_data(self, data):
        if self.stack and self.stack[-1][0] == "style":
            if "url(" in data or "@import" in data:
                self.err("the style sheet fetches (url( or @import)")


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        text = f.read()
    c = Check()
    c.feed(text)
    c.close()
    for tag, pos in c.stack:
        c.errors.append(f"<{tag}> opened at line {pos[0]} is never closed")
    if not text.startswith("<!DOCTYPE html>"):
        c.errors.append("no <!DOCTYPE html> first")
    for e in c.errors:
        print(e)
    if not c.errors:
        print(f"ok: {sys.argv[1]} is well-formed and self-contained")
    return 1 if c.errors else 0


if __name__ == "__main__":
    sys.exit(main())
