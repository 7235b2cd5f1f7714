"""Phase: each claim's ✓ links to the line of code that proves it (docverify.contract.proofs).

- `{✓ name}` in a page's prose becomes a ✓ link to the check line `# ✓ name` in
  the code the page shows; `{-}` (not a claim) disappears. A link to a check
  only a GPU run reaches says so, with the GPU report's outcome or "not run yet" (once
  for a marker's checks of the same outcome, then a space).
- Each check line in the built page gets the anchor the links point at
  (`#proof-name`); the stylesheet highlights the line the reader lands on.
- The build fails, naming page:line, on a marker that resolves to nothing, to a
  check the page does not show, or to a line the last test run did not execute;
  and on a link whose anchor the built page lacks.
"""

from __future__ import annotations

import html
import re

from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

from docverify.contract import proofs
from docverify.i18n import languages
from docverify.i18n.site_text import text
from docverify.matrix.records import matrix_anchor
from docverify.problems import Problem, listed
from docverify.results import report
from docverify.site.state import SiteBuild

_LINE = re.compile(r'(<span id="__span-\d+-\d+">)(.*?)(?=\n</span>)', re.DOTALL)
_TAG = re.compile(r"<[^>]+>")


def _executed(build: SiteBuild) -> dict[str, set[int] | None]:
    """File -> lines its current, passing CPU run executed; None where that is not known.

    A failed run stopped part way (its badge says FAILED), a run of a file changed
    since does not describe it, and a live run (`make serve`) records no lines.
    """
    return {
        rel: set(result.executed_lines)
        if result.outcome == "passed"
        and result.executed_lines
        and report.is_current(result, build.root)
        else None
        for rel, result in build.reports.get("cpu", {}).items()
    }


def _resolved(build: SiteBuild, page_path: str, source: str, page, files):
    """(names, links) of each proof marker in `source`, resolved as if written on `page_path`;
    and what does not resolve, or points at a line the last run did not execute."""
    resolved, problems = proofs.resolve(page_path, source, build.root)
    executed = _executed(build)
    for marker, targets in resolved.items():
        for where in proofs.unexecuted(targets, executed):
            problems.append(Problem(page_path, marker.line, f"its check {where} did not run"))
    links = [(m.names, _links(build, targets, page, files)) for m, targets in resolved.items()]
    return links, problems


def link(build: SiteBuild, markdown: str, page, files) -> str:
    page_path = f"docs/{page.file.src_uri}"
    links, problems = _resolved(build, page_path, page.file.content_string, page, files)
    if problems:
        raise PluginError(listed("Proof links that do not resolve:", problems))
    # The page as MkDocs hands it over (this phase follows the embed check, before any
    # phase adds to it): the same markers as in the file, in the same order.
    pending = iter(links)

    def replace(match: re.Match[str]) -> str:
        names, links = next(pending, ((), None))
        if links is None or names != tuple((match["names"] or "").split()):
            raise PluginError(f"{page_path}: proof markers changed before the proof-link phase")
        return links

    return proofs.MARKER.sub(replace, markdown)


def links_in(build: SiteBuild, text: str, page, files, *, written_in: str) -> str:
    """`text` (written in the file `written_in`, such as a page's `summary:`) shown on
    `page`: its proof markers resolved as if on `page`, as links."""
    page_path = f"docs/{page.file.src_uri}"
    links, problems = _resolved(build, page_path, text, page, files)
    if problems:
        moved = [Problem(written_in, 1, f"{p.message} (shown on {page_path})") for p in problems]
        raise PluginError(listed("Proof links that do not resolve:", moved))
    pending = iter(found for _, found in links)
    return proofs.MARKER.sub(lambda match: next(pending), text)


def _links(build: SiteBuild, targets: list[proofs.Target], page, files) -> str:
    """The ✓ links of one marker. Checks that only a GPU run reaches, with the same outcome,
    share their label: a ✓ link each, the words once after the last of them, and a space
    before the sentence that follows (a Chinese sentence follows its marker directly)."""
    labels = [_gpu_label(build, t) for t in targets]
    shown = []
    for k, (target, label) in enumerate(zip(targets, labels, strict=True)):
        last = label is not None and labels[k + 1 : k + 2] != [label]
        shown.append(_link(build, target, page, files, labelled=label is None or last))
        shown += [" "] if last else []
    return "".join(shown)


def _gpu_label(build: SiteBuild, target: proofs.Target) -> str | None:
    """The label of a check only a GPU run reaches ("checked on GPU only: not run yet"),
    or None for any other check."""
    if not target.page or target.versions or not target.check.cuda_only:
        return None
    lang = build.lang
    gpu = build.reports.get("cuda", {}).get(target.check.file)
    if gpu is None or not report.is_current(gpu, build.root):
        outcome = text(lang, "proof.gpu_not_run")
    else:
        outcome = text(lang, f"proof.gpu_{gpu.outcome}", date=gpu.date)
    return text(lang, "proof.gpu", outcome=outcome)


def _link(build: SiteBuild, target: proofs.Target, page, files, *, labelled: bool = True) -> str:
    lang = build.lang
    check = target.check
    where = f"{check.file}:{check.line}"
    if not target.page:  # a named test of the suite: its source
        title = text(lang, "proof.test", test=html.escape(check.name))
        href = f"{build.source_url}{check.file}#L{check.line}" if build.source_url else ""
        return _anchor(href, title, "✓")
    if target.versions:  # the block's note in the version matrix (docverify.site.matrix_lines)
        href = f"#{matrix_anchor(check.file, check.line)}"
        return _anchor(href, text(lang, "proof.versions", where=where), "✓")
    href = f"#proof-{check.name}"
    if target.page != f"docs/{languages.source_page(page.file.src_uri)}":
        twin = languages.twin(target.page.removeprefix("docs/"), lang)
        other = files.get_file_from_path(twin) or files.get_file_from_path(target.page[5:])
        href = get_relative_url(other.url, page.url) + href
    label = _gpu_label(build, target)
    if label is None:
        return _anchor(href, text(lang, "proof.title", where=where), "✓")
    shown = f"✓ {label}" if labelled else "✓"
    return _anchor(href, f"{label} ({where})", shown, css="proof-link gpu")


def _id(name: str) -> str:
    return name if name.startswith("matrix-") else f"proof-{name}"


def _anchor(href: str, title: str, shown: str, css: str = "proof-link") -> str:
    title = html.escape(title, quote=True)
    if not href:
        return f'<span class="{css}" title="{title}">{shown}</span>'
    return f'<a class="{css}" href="{html.escape(href, quote=True)}" title="{title}">{shown}</a>'


def anchor_checks(output: str, page) -> str:
    placed: set[str] = set()

    def anchor(match: re.Match[str]) -> str:
        shown = html.unescape(_TAG.sub("", match[2]))
        names = proofs.CHECK.findall(shown[shown.index("#") :]) if "#" in shown else []
        new = [n for n in names if n not in placed]
        placed.update(new)
        anchors = "".join(f'<a class="proof-anchor" id="proof-{n}"></a>' for n in new)
        return match[1] + anchors + match[2]

    output = _LINE.sub(anchor, output)
    missing = sorted(set(re.findall(r'href="#proof-([^"]+)"', output)) - placed)
    blocks = set(re.findall(r'id="(matrix-[^"]+)"', output))
    missing += sorted(set(re.findall(r'href="#(matrix-[^"]+)"', output)) - blocks)
    if missing:
        page_path = f"docs/{page.file.src_uri}"
        raise PluginError(
            listed(
                "Proof links whose line the built page does not show:",
                [Problem(page_path, 0, f"#{_id(name)}") for name in missing],
            )
        )
    return output
