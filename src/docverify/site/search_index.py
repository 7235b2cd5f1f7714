"""One search document per built page: what the site's search (site-search.js) ranks on.

From a page's rendered article: its title (h1), headings (h2, h3), the
"questions this page answers" (the `question` box's items), the 中文 search
terms (`*中文: …*` / `*关键词：…*`), its tags (one term each, ` · `-separated
like the 中文 terms), code, and the rest of the prose. Not the parts every
page repeats (badges, download and run lines, heading permalinks). A section's
index page (or the home page) is marked `section`: its questions and prose sum
up its children, and the search weighs them as such (site-search.js).

And `sections`: each h2 and h3 as [its id, its text, the inline code under it up
to the next heading]. The search does not rank pages on them; it links each
result to the section the query matches best, by its heading's words or the
messages it quotes (an atlas entry's error message, another version's wording).
"""

from __future__ import annotations

import html as html_lib
import re
from html.parser import HTMLParser

_PRE = re.compile(r"<pre\b.*?</pre>", re.DOTALL)
_TAG = re.compile(r"<[^>]+>")
_ARTICLE = re.compile(r'<article class="md-content__inner md-typeset">(.*)</article>', re.DOTALL)
_TERMS = re.compile(r"^\s*(?:中文|关键词)\s*[:：]\s*")
# Elements whose text is left out: the same on every page, or not text at all. (The
# version matrix's folds stay in, as code (FOLD_CLASS): another version's error
# message finds its page, but other versions' statements and outputs do not weigh
# as the page's prose.)
_SKIP_CLASSES = {
    "headerlink",
    "snippet-badge",
    "page-downloads",
    "run-it",
    "md-content__button",
    "version-range",
    "version-holds",
}
FOLD_CLASS = "version-differs"
_SKIP_TAGS = {"script", "style", "svg", "button"}
_VOID = {"br", "hr", "img", "input", "meta", "link", "source", "wbr"}


class _Fields(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.fields: dict[str, list[str]] = {
            k: [] for k in ("title", "headings", "questions", "keywords", "tags", "code", "text")
        }
        self.stack: list[tuple[str, str | None]] = []  # (tag, field it opened), innermost last
        # Each h2 and h3 with an id: [id, its words, the words of the inline code under it].
        self.sections: list[tuple[str, list[str], list[str]]] = []
        self._in_heading = False

    def _field(self) -> str | None:
        return next((f for _, f in reversed(self.stack) if f), None)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            return
        classes = set((dict(attrs).get("class") or "").split())
        field = None
        if tag in _SKIP_TAGS or classes & _SKIP_CLASSES:
            field = "skip"
        elif tag == "details" and FOLD_CLASS in classes:
            field = "code"
        elif tag == "h1":
            field = "title"
        elif tag in ("h2", "h3"):
            field = "headings"
            anchor = dict(attrs).get("id")
            if anchor and self._field() != "skip":
                self._in_heading = True
                self.sections.append((anchor, [], []))
        elif tag == "div" and {"admonition", "question"} <= classes:
            field = "questions"
        elif tag == "li" and self._field() == "questions":
            field = "question-item"
        elif tag == "a" and "md-tag" in classes:
            field = "tags"
        elif tag == "a" and not (dict(attrs).get("href") or "#").startswith("#"):
            # A link's words name the page it leads to (an error message linked to
            # its atlas entry): they find that page, not the one that links it.
            field = "skip"
        elif tag == "em":
            field = "em"
        self.stack.append((tag, field))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("h2", "h3"):
            self._in_heading = False
        elif tag == "code" and self.sections:
            self.sections[-1][2].append(" ")
        field = self._field()
        if field in self.fields or field in ("em", None):
            # Block ends (a heading, a paragraph, a cell) separate words.
            self.fields["text" if field in ("em", None) else field].append(" ")
        while self.stack:
            open_tag, field = self.stack.pop()
            if field == "question-item":
                self.fields["questions"].append("\n")
            elif field == "tags":
                self.fields["tags"].append(" · ")  # one term per tag, as in the 中文 terms line
            if open_tag == tag:
                break

    def handle_data(self, data: str) -> None:
        field = self._field()
        if field == "skip":
            return
        if field == "em" and _TERMS.match(data):
            self.fields["keywords"].append(_TERMS.sub("", data))
            return
        if field == "questions":
            return  # the box's title
        if field == "question-item":
            field = "questions"
        elif field in (None, "em"):
            field = "text"
        if self._in_heading:
            self.sections[-1][1].append(data)
        elif self.sections and any(tag == "code" for tag, _ in self.stack):
            self.sections[-1][2].append(data)
        self.fields[field].append(data)


def _one_line(parts: list[str]) -> str:
    return re.sub(r"\s+", " ", "".join(parts)).strip()


def page_document(
    url: str, html: str, *, boost: float = 1.0, section: bool = False
) -> dict[str, object] | None:
    """The search document of a built page (None if it has no article); `section` for an
    index page that sums up the pages under it."""
    article = _ARTICLE.search(html)
    if not article:
        return None
    # Code blocks are thousands of highlighting <span>s: read them as text first
    # (the parser then has a tenth of the tags to walk).
    content = article.group(1)
    code = [html_lib.unescape(_TAG.sub("", block)) for block in _PRE.findall(content)]
    parser = _Fields()
    parser.feed(_PRE.sub(" ", content))
    parser.close()
    parser.fields["code"] = [" ".join(code), " ", *parser.fields["code"]]  # blocks, then folds
    doc: dict[str, object] = {"id": url, "url": url}
    for name, parts in parser.fields.items():
        text = "".join(parts)
        if name == "questions":
            text = "\n".join(line.strip() for line in text.split("\n") if line.strip())
        else:
            text = re.sub(r"\s+", " ", text).strip()
        doc[name] = text
    doc["sections"] = [
        [anchor, _one_line(heading), _one_line(quoted)]
        for anchor, heading, quoted in parser.sections
        if _one_line(heading)
    ]
    if boost != 1.0:
        doc["boost"] = boost
    if section:
        doc["section"] = True
    return doc
