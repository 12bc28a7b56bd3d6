# SPDX-License-Identifier: Apache-2.0
"""html_check.py - what the HTML tests share: a strict well-formedness walk
with Python's html.parser (every element closed, in order; nothing fetched,
no script), a small DOM to read sections, tables and the data-k figures,
the text report's number formats written again in Python, and the check of
every data-k figure against the JSON output of the same verb."""
from html.parser import HTMLParser
import re

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children = tag, dict(attrs), parent, []

    def text(self):
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self):
        for c in self.children:
            if isinstance(c, Node):
                yield c
                yield from c.iter()


class _Walker(HTMLParser):
    """Builds the tree; records every tag left open, closed out of order or
    closed without being opened."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", [], None)
        self.cur, self.errors = self.root, []

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        if tag not in VOID:
            n.line = self.getpos()[0]
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        if tag in VOID:
            self.errors.append(f"line {self.getpos()[0]}: end tag of void element <{tag}>")
        elif self.cur.tag != tag:
            self.errors.append(f"line {self.getpos()[0]}: </{tag}> closes <{self.cur.tag}>")
        else:
            self.cur = self.cur.parent

    def handle_data(self, data):
        self.cur.children.append(data)


def parse(text):
    """(root, errors): errors lists unclosed and misnested tags."""
    w = _Walker()
    w.feed(text)
    w.close()
    n = w.cur
    while n is not w.root:
        w.errors.append(f"<{n.tag}> opened on line {n.line} never closed")
        n = n.parent
    return w.root, w.errors


def self_contained(text):
    """Problems that would make the page fetch or run anything."""
    bad = []
    for pat, why in ((r"<script", "a script"), (r"\son[a-z]+\s*=", "an event handler"),
                     (r"\s(src|href)\s*=", "a link or source"), (r"url\(", "a CSS url()"),
                     (r"@import", "a CSS import"), (r"<(iframe|object|embed|img|link)\b",
                                                    "an embedded resource")):
        if re.search(pat, text, re.I):
            bad.append(why)
    for m in re.finditer(r"https?://[^\"' )]*", text):
        if m.group(0) != "http://www.w3.org/2000/svg":
            bad.append(f"an address {m.group(0)}")
    return bad


def by_id(root, ident):
    return next((n for n in root.iter() if n.attrs.get("id") == ident), None)


def sections(root):
    return [n.attrs.get("id") for n in root.iter() if n.tag == "section"]


def table(root, ident):
    """(header cells, rows of cell texts) of table#ident."""
    t = by_id(root, ident)
    if t is None:
        raise AssertionError(f"no table #{ident}")
    head = [c.text() for c in t.iter() if c.tag == "th"]
    rows = [[c.text() for c in tr.iter() if c.tag == "td"]
            for tr in t.iter() if tr.tag == "tr" and any(c.tag == "td" for c in tr.iter())]
    return head, rows


def keyed(root):
    """data-k key -> the texts of the elements carrying it."""
    out = {}
    for n in root.iter():
        if "data-k" in n.attrs:
            out.setdefault(n.attrs["data-k"], []).append(n.text())
    return out


# The text report's formats (tools/render/render_fmt.c, analysis/u128.c).
def fmt_pct(x):
    if x is None:
        return "n/a"
    if x != 0 and abs(x) < 0.001:
        return "%.2g%%" % (x * 100)
    return "%.1f%%" % (x * 100)


def fmt_seconds(s):
    if s is None:
        return "n/a"
    return "%.4f s" % s if s < 1 else "%.3f s" % s


def fmt_flop(n):
    d, p = float(n), 0
    while d >= 1000 and p < 8:
        d /= 1000
        p += 1
    return "%.0f FLOP" % d if p == 0 else "%.2f %sFLOP" % (d, "KMGTPEZY"[p - 1])


def json_get(j, path):
    for part in path.split("."):
        j = j[part]
    return j


def expected(j, key):
    """The text a data-k element must hold, from the verb's JSON output."""
    if key == "recompute_share":
        m = j["measured"]
        return fmt_pct(m["recompute_flops_per_iteration"] / m["flops_per_iteration"])
    if key.endswith("~si"):
        return fmt_flop(json_get(j, key[:-3]))
    v = json_get(j, key)
    last = key.rsplit(".", 1)[-1]
    if isinstance(v, bool):
        raise AssertionError(f"{key}: a boolean")
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return v
    if last in ("hfu", "mfu", "hfu_mix") or last.startswith("share"):
        return fmt_pct(v)
    if "seconds" in last:
        return fmt_seconds(v)
    raise AssertionError(f"{key}: no format known for {v!r}")


def check_keys(root, j, required):
    """Every data-k figure equals the JSON's; the required ones are there.
    Returns a list of problems."""
    bad = []
    k = keyed(root)
    for key in required:
        if key not in k:
            bad.append(f"no figure data-k={key}")
    for key, texts in k.items():
        want = expected(j, key)
        for t in texts:
            if t != want:
                bad.append(f"{key}: page {t!r}, JSON gives {want!r}")
    return bad
