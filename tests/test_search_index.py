"""What a page's search document holds (docverify.site.search_index), field by field.

The browser test (tests/test_search_browser.py) measures the ranking end to end;
this pins the rules it depends on that a built page rarely shows in isolation.
"""

from __future__ import annotations

from docverify.site.search_index import page_document

PAGE = """<article class="md-content__inner md-typeset">
<h1>Distributed errors</h1>
<p>The ranks wait at a collective. See <a href="../ddp_train/">timeouts in training</a>.</p>
<div class="highlight"><pre><code>dist.barrier()</code></pre></div>
<details class="version-differs">
<summary>torch 2.4–2.6 raises:</summary>
<p><code>dist.all_reduce(t)</code> raises <code>RuntimeError: Cannot use ReduceOp.AVG with Gloo</code></p>
</details>
<p>Fix: call it on every rank.</p>
</article>"""


def test_another_versions_output_is_searchable_as_code_not_as_prose() -> None:
    doc = page_document("errors/distributed_errors/", PAGE)
    assert "Cannot use ReduceOp.AVG with Gloo" in doc["code"]
    assert doc["code"].startswith("dist.barrier()")  # the page's own code first
    assert "Gloo" not in doc["text"] and "2.4" not in doc["text"]
    assert doc["text"] == "The ranks wait at a collective. See . Fix: call it on every rank."


def test_a_links_words_are_left_to_the_page_it_leads_to() -> None:
    doc = page_document("errors/distributed_errors/", PAGE)
    assert "timeouts in training" not in " ".join(str(v) for v in doc.values())


ATLAS = """<article class="md-content__inner md-typeset">
<h1 id="shape-errors">Shape errors</h1>
<p>Each entry below.</p>
<h2 id="mat1-and-mat2">mat1 and mat2 shapes cannot be multiplied<a class="headerlink" href="#mat1-and-mat2">¶</a></h2>
<p>Older torch says <code>size mismatch, m1: [8 x 2352]</code>.</p>
<details class="version-differs"><summary>torch 2.4:</summary><p><code>mat1 dim 1 must match mat2 dim 0</code></p></details>
<h3 id="the-fix">The fix</h3>
<p>Flatten first.</p>
</article>"""


def test_each_heading_is_a_section_with_its_id_and_the_code_it_quotes() -> None:
    # The search links a result to the section a query matches best (site-search.js).
    doc = page_document("errors/shape_errors/", ATLAS)
    assert doc["sections"] == [
        [
            "mat1-and-mat2",
            "mat1 and mat2 shapes cannot be multiplied",
            "size mismatch, m1: [8 x 2352] mat1 dim 1 must match mat2 dim 0",
        ],
        ["the-fix", "The fix", ""],
    ]
    assert doc["headings"] == "mat1 and mat2 shapes cannot be multiplied The fix"


FIELDS = """<article class="md-content__inner md-typeset">
<h1>Reshaping</h1>
<p><em>中文: 改变形状 · 视图</em></p>
<nav class="md-tags"><a class="md-tag" href="../../tags/#reshape">reshape</a></nav>
<div class="admonition question"><p class="admonition-title">Questions this page answers</p>
<ul><li>Why does view fail?</li><li>How do I flatten?</li></ul></div>
<h2 id="view">view and reshape</h2>
<p>A view shares memory.</p>
<div class="highlight"><pre><code>y = x.view(4, 3)</code></pre></div>
</article>"""


def test_a_page_document_holds_each_field_the_search_ranks() -> None:
    # verification.md: title, headings, questions, 中文 terms, tags, prose and code.
    doc = page_document("tensors/reshape/", FIELDS)
    assert doc["title"] == "Reshaping"
    assert doc["headings"] == "view and reshape"
    assert doc["questions"] == "Why does view fail?\nHow do I flatten?"
    assert doc["keywords"] == "改变形状 · 视图"
    assert doc["tags"] == "reshape ·"
    assert doc["text"] == "A view shares memory."
    assert doc["code"] == "y = x.view(4, 3)"
