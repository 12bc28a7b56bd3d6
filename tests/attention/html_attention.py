# SPDX-License-Identifier: Apache-2.0
"""html_attention.py MODE FLOPCOUNT WORKDIR

The --html pages with counted fused attention (tools/render/html/attention_table.c):
the "attention" section (the counted FLOPs by source as a chart and a
table, the shapes, what is not counted), its share among the headline
figures, and the waterfall from the formula to the counted FLOPs with the
attention band and the attention excess as steps. The reports are those of
report_attention.py (same model, figures by hand there).

  pages    html.parser: structure, every keyed figure as --json gives it,
           the tables' rows by hand
  browser  the same pages in headless chromium (label chromium; 77 without)
"""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "html"))
import html_check as hc  # noqa: E402
import report_attention as ra  # noqa: E402

REPORT_SECTIONS = ["headline", "iterations", "phases", "difference", "attention", "shapes"]
MERGE_SECTIONS = ["headline", "iterations", "phases", "ranks", "consistency", "attention",
                  "shapes"]
REPORT_KEYS = ["attention.share_of_counted", "totals.attention_flops", "totals.counted_flops",
               "measured.attention_excess_flops_per_iteration", "measured.mfu",
               "difference.counted_model_flops_per_iteration"]


def pages(work, cli):
    """Writes the two pages; returns [(html, json, sections, required keys)]."""
    r = os.path.join(work, "r.json")
    ra.write(r, ra.report(7))
    args = [r, "--peak-tflops", "0.1"]
    j = json.loads(ra.run([cli, "report", *args, "--json"]).stdout)
    page = os.path.join(work, "report.html")
    ra.run([cli, "report", *args, "--html", page])
    d = os.path.join(work, "ranks")
    os.makedirs(d)
    ra.write(os.path.join(d, "rank0.json"), ra.report(10, "flash", True, 0, 2))
    ra.write(os.path.join(d, "rank1.json"), ra.report(11, "cudnn", False, 1, 2))
    mj = json.loads(ra.run([cli, "merge", d, "--peak-tflops", "0.1", "--json"]).stdout)
    mpage = os.path.join(work, "merge.html")
    ra.run([cli, "merge", d, "--peak-tflops", "0.1", "--html", mpage])
    return [(page, j, REPORT_SECTIONS, REPORT_KEYS),
            (mpage, mj, MERGE_SECTIONS, ["attention.flops~si", "utilization.mfu"])]


def check_report_page(root):
    k = hc.keyed(root)
    ra.need(k["attention.share_of_counted"] == ["4.5%"], f"share {k}")  # 7,569,408 / 168,001,536
    ra.need(k["measured.attention_excess_flops_per_iteration"] == ["270336"], f"excess {k}")
    _, rows = hc.table(root, "attn-sources")
    ra.need(rows == [["GEMMs", "80", "160.43 MFLOP", "160432128", "95.5%"],
                     ["flash", "16", "7.57 MFLOP", "7569408", "4.5%"]], f"sources {rows}")
    _, rows = hc.table(root, "attn-table")
    ra.need([r[:11] for r in rows] ==
            [["flash", "backward", "2 x 4 (kv 4)", "32 x 32", "16", "causal", "8", "0", "5406720",
              "4325376", "15728640"],
             ["flash", "forward", "2 x 4 (kv 4)", "32 x 32", "16", "causal", "8", "0", "2162688",
              "2162688", "6291456"]], f"shapes {rows}")
    _, rows = hc.table(root, "uncounted-table")
    ra.need(rows == [[ra.FA3["name"], "attention", "parameters not readable on the host",
                      "FlashAttention-3 kernel", "40", "0"]], f"uncounted {rows}")
    _, rows = hc.table(root, "difference-table")
    steps = [(r[0], r[1]) for r in rows]
    want = [("formula's model FLOPs", "43253760"),
            ("attention core, the formula's causal convention against the band the kernels ran, "
             "forward + backward", "1523712"),
            ("counted FLOPs less recompute and the attention excess", "41730048"),
            ("attention excess", "270336"), ("counted FLOPs", "42000384")]
    ra.need(steps[:5] == want, f"waterfall {steps}")
    ra.need(not any("attention core (QK^T" in s[0] for s in steps), "core estimated as missing")
    text = " ".join(n.text() for n in root.iter() if n.tag == "p")
    ra.need("counted exactly: 1622016 for this model" in text, "comparison sentence")


def check_merge_page(root):
    _, rows = hc.table(root, "attn-sources")
    ra.need(rows == [["GEMMs", "160", "320.86 MFLOP", "320864256", "95.5%"],
                     ["flash", "16", "7.57 MFLOP", "7569408", "2.3%"],
                     ["cudnn", "16", "7.57 MFLOP", "7569408", "2.3%"]], f"sources {rows}")
    _, rows = hc.table(root, "attn-table")
    ra.need(len(rows) == 4, f"{len(rows)} shape rows")
    cud = [r for r in rows if r[0] == "cudnn"]
    ra.need(all(r[10] == "not known" for r in cud), f"cuDNN tiles {cud}")
    _, rows = hc.table(root, "uncounted-table")
    ra.need(rows[0][4] == "80", f"uncounted summed {rows}")  # 40 on each rank


def check_pages(work, cli):
    for i, (path, j, sections, keys) in enumerate(pages(work, cli)):
        text = open(path, encoding="utf-8").read()
        root, errors = hc.parse(text)
        ra.need(not errors, f"{path}: {errors[:5]}")
        ra.need(not hc.self_contained(text), f"{path}: not self-contained")
        ra.need(hc.sections(root) == sections, f"sections {hc.sections(root)}")
        bad = hc.check_keys(root, j, keys)
        ra.need(not bad, f"{path}: {bad}")
        (check_merge_page if i else check_report_page)(root)
    # a bound: marked in the table
    b = os.path.join(work, "bound.json")
    rep = ra.report(9)
    for s in rep["attention"]["shapes"]:
        s["bound"] = True
    ra.write(b, rep)
    page = os.path.join(work, "bound.html")
    ra.run([cli, "report", b, "--html", page])
    root, _ = hc.parse(open(page, encoding="utf-8").read())
    _, rows = hc.table(root, "attn-table")
    ra.need(all(r[3] == "<=32 x <=32" and r[5] == "causal (a bound)" and r[8].startswith("<= ")
                for r in rows), f"bound rows {rows}")
    notes = " ".join(n.text() for n in root.iter() if n.attrs.get("class") == "note")
    ra.need("Upper bounds: 16 calls of shapes whose lengths are maxima" in notes, "bound note")
    # no attention: no section (the pages as before)
    plain = ra.report(12)
    del plain["attention"], plain["uncounted"]
    ra.write(b, plain)
    ra.run([cli, "report", b, "--html", page])
    root, _ = hc.parse(open(page, encoding="utf-8").read())
    ra.need("attention" not in hc.sections(root), "a section without attention")
    # ... unless kernels went past the launch hooks: the section says so with the report's note
    note = ("/w/train registers its kernels through a statically linked CUDA runtime (nvcc's "
            "default, -cudart static): the launch hooks do not see them; CUPTI is off "
            "(FLOPCOUNT_CUPTI=0): those launches are not seen")
    plain["launch"] = {"note": note}
    ra.write(b, plain)
    ra.run([cli, "report", b, "--html", page])
    root, _ = hc.parse(open(page, encoding="utf-8").read())
    ra.need("attention" in hc.sections(root), "no attention section for the launch note")
    warns = [n.text() for n in root.iter() if n.attrs.get("class") == "warn"]
    ra.need(note in warns, f"the launch note is not on the page: {warns}")
    print("ok: attention pages")


def check_browser(work, cli):
    if shutil.which("chromium") is None:
        print("SKIP: chromium is not installed (bash scripts/deps.sh installs it)")
        sys.exit(77)
    import html_browser as hb
    for i, (path, j, sections, keys) in enumerate(pages(work, cli)):
        root = hb.render(path, sections, j, keys)
        (check_merge_page if i else check_report_page)(root)
    print("ok: attention pages in chromium")


def main():
    mode, cli, work = sys.argv[1:4]
    work = os.path.join(work, "html-" + mode)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    {"pages": check_pages, "browser": check_browser}[mode](work, cli)


if __name__ == "__main__":
    main()
