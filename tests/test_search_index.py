"""What a page's search document holds (docverify.site.search_index), field by field.

The browser test (tests/test_search_browser.py) measures the ranking end to end;
this pins the two rules it depends on that a built page rarely shows in isolation.
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
