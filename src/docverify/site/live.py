"""Live verification while editing: `mkdocs serve` re-runs a saved snippet and shows the result.

docverify.site.live_phase connects this to the plugin's events; `make serve`
runs `mkdocs serve --dirty`, in which MkDocs rebuilds only the pages whose
built file is older than their source or missing. Before each rebuild
(`LiveSession.before_build`, from `on_pre_build`):

- what changed since the last build is found from the watched files;
- each saved snippet script is run with the suite's own check
  (docverify.run.live_check, in a child of a warm forkserver that has torch
  imported), and its result is merged into the verification report
  (`via="mkdocs serve"`), so that the badges follow;
- the built pages that embed a re-run snippet, and the Verification page, are
  removed in both languages, so that the dirty build rebuilds exactly those; a
  page whose prose changed (not its front matter) is removed in both languages,
  with the pages that gather from every page; any other change (front
  matter, a new or removed file, mkdocs.yml, the plugin) removes every built page,
  so that nothing is left out of date.

A failed run shows on its pages: `annotate` puts the `#>` diff or the
traceback in a box under the title, in the page's language. Snippets launched
with torchrun or that need CUDA are not run live; their pages say that
`make test` verifies them. With the docs-only requirements (no torch) live
verification is off, said in one log line. This module never imports torch.
"""

from __future__ import annotations

import datetime as dt
import html
import importlib.util
import logging
import multiprocessing
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from docverify.contract import front_matter
from docverify.i18n import languages
from docverify.results import report
from docverify.contract.embeds import find_embeds
from docverify.contract.page_title import under_title
from docverify.contract.sections import SnippetFormatError
from docverify.i18n.site_text import text
from docverify.contract.snippets import load

log = logging.getLogger("mkdocs.live_verification")

VIA = "mkdocs serve"
GRACE_S = 15  # beyond a snippet's own time limit (its SIGALRM), before the child is killed

# What runs one snippet and returns docverify.run.live_check's reply: (root, rel, timeout_s) ->
# {"result": the run's record as SnippetResult.to_dict(), or None if it never replied,
#  "detail": the `#>` diff, the traceback or why it stopped}.
Runner = Callable[[Path, str, float], dict]


def run_in_child(root: Path, rel: str, timeout_s: float) -> dict:
    """`live_check.check` in a fresh child of the warm forkserver; a crash or hang is a reply."""
    context = multiprocessing.get_context("forkserver")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child_entry(), args=(send, str(root), rel, "cpu", VIA))
    child.start()
    send.close()
    try:
        if receive.poll(timeout_s + GRACE_S):
            return receive.recv()
        child.kill()
        return _failed(f"{rel} ran longer than {timeout_s + GRACE_S:.0f} s and was stopped")
    except EOFError:  # the child ended without replying
        child.join()
        return _failed(f"the run of {rel} crashed ({_ended(child)}) before it could reply")
    finally:
        child.join()
        receive.close()


def _failed(detail: str) -> dict:
    return {"result": None, "detail": detail}


def _ended(child) -> str:
    code = child.exitcode
    return f"signal {-code}" if code is not None and code < 0 else f"exit {code}"


def _child_entry():
    from docverify.run.live_check import check_and_send

    return check_and_send


def warm_up(root: Path) -> None:
    """Start the forkserver in the background, importing torch there: the first save need not wait.

    The server is a new interpreter: PYTHONPATH gives it this checkout's src/
    (the virtual environment's editable install may point at another checkout).
    """
    from docverify.run.live_check import WARM_MODULES

    paths = [str(root / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]
    os.environ["PYTHONPATH"] = os.pathsep.join(paths)
    multiprocessing.set_forkserver_preload(list(WARM_MODULES))
    context = multiprocessing.get_context("forkserver")
    threading.Thread(target=lambda: _started(context.Process(target=_no_op)), daemon=True).start()


def _started(process) -> None:
    process.start()
    process.join()


def _no_op() -> None:
    pass


def torch_importable() -> bool:
    return importlib.util.find_spec("torch") is not None


# --- what changed between two builds ----------------------------------------------------------


def snapshot(root: Path, watched: list[Path]) -> dict[str, tuple]:
    """Per file under the watched paths: (mtime_ns, size); for snippets their sha256; for
    pages their front matter (title, weight, summary, tags: what other pages show of them)."""
    found: dict[str, tuple] = {}
    for top in watched:
        paths = [top] if top.is_file() else (p for p in top.rglob("*") if p.is_file())
        for path in paths:
            if "__pycache__" in path.parts:
                continue
            try:
                rel = path.resolve().relative_to(root).as_posix()
                stamp: tuple = (path.stat().st_mtime_ns, path.stat().st_size)
            except (OSError, ValueError):
                continue
            if rel.startswith("snippets/"):
                stamp = (report.file_sha256(path),)
            elif rel.startswith("docs/") and rel.endswith(".md"):
                stamp = (*stamp, _front_matter(path))
            found[rel] = stamp
    return found


def _front_matter(path: Path) -> str:
    try:
        return str(front_matter.split(path.read_text(encoding="utf-8"))[0])
    except (OSError, UnicodeDecodeError, ValueError):
        return ""


@dataclass(frozen=True)
class Changes:
    snippets: tuple[str, ...] = ()  # files under snippets/ whose content changed
    pages: tuple[str, ...] = ()  # pages (docs/...) whose text changed, but not their front matter
    other: tuple[str, ...] = ()  # anything else, added or removed files included

    @classmethod
    def between(cls, before: dict[str, tuple], after: dict[str, tuple]) -> Changes:
        snippets, pages, other = [], [], []
        for rel in sorted(set(before) | set(after)):
            if before.get(rel) == after.get(rel):
                continue
            is_edit = rel in before and rel in after
            if is_edit and rel.startswith("snippets/"):
                snippets.append(rel)
            elif is_edit and len(before[rel]) == 3 and before[rel][2] == after[rel][2]:
                pages.append(rel)  # a page's prose: only the pages that show it change
            else:
                other.append(rel)
        return cls(tuple(snippets), tuple(pages), tuple(other))


# --- the session: one `mkdocs serve` --------------------------------------------------------


@dataclass
class LiveSession:
    root: Path
    reports_dir: Path
    run: Runner | None = None  # None: live verification is off
    watched: list[Path] = field(default_factory=list)
    results: dict[str, LiveRun] = field(default_factory=dict)  # latest live run per snippet
    _baseline: dict[str, tuple] | None = None

    def before_build(self, site_dir: Path, docs_dir: Path) -> None:
        """Run what was saved since the last build; remove the built pages it changes."""
        now = snapshot(self.root, self.watched)
        before, self._baseline = self._baseline, now
        if before is None:
            return  # the first build of this `mkdocs serve`: everything is built
        changed = Changes.between(before, now)
        ran = self.verify([s for s in changed.snippets if s.endswith(".py")])
        if changed.other:
            shown = [", ".join(changed.other[:3]), f"and {len(changed.other) - 3} more"]
            log.info("Full rebuild: %s changed", " ".join(shown[: 1 + (len(changed.other) > 3)]))
            forget_built_pages(site_dir, docs_dir, None)
            return
        if ran or changed.snippets:
            forget_built_pages(site_dir, docs_dir, {*ran, *changed.snippets})
        if changed.pages:
            forget_edited_pages(site_dir, docs_dir, changed.pages)

    def verify(self, snippets: list[str]) -> list[str]:
        """Run the saved snippets live and merge their results into the report; those run."""
        ran = []
        for rel in snippets:
            path = self.root / rel
            if self.run is None or not path.is_file() or Path(rel).name.startswith("_"):
                continue  # a private helper: the snippets that import it are run by `make test`
            snippet = load(path)
            if skip_reason(snippet.devices, snippet.launched):
                continue
            reply = self.run(self.root, rel, snippet.timeout_s)
            run = LiveRun(self._result(rel, reply.get("result")), reply.get("detail", ""))
            self.results[rel] = run
            ran.append(rel)
            report.merge_results([run.result], self.reports_dir, root=self.root)
            passed = run.result.outcome == "passed"
            log.info("Live verification: %s %s", rel, "passed" if passed else "FAILED")
            if not passed:
                log.warning("%s", run.detail)
        return ran

    def _result(self, rel: str, sent: dict | None) -> report.SnippetResult:
        """The record the run sent; for a run that never replied (a crash, a hang), a failed
        one of the file as it is, where the run's torch and machine are unknown."""
        if sent is not None:
            return report.SnippetResult.from_dict(sent)
        unknown = {
            "date": dt.datetime.now(dt.timezone.utc).date().isoformat(),
            "commit": report.current_commit(self.root),
            **dict.fromkeys(("torch", "python", "machine"), "?"),
        }
        sha256 = report.file_sha256(self.root / rel) or ""
        return report.record(
            rel, "cpu", root=self.root, sha256=sha256, sections=(), via=VIA, environment=unknown
        )

    # -- on the page

    def annotate(self, page: str, markdown: str, lang: str = languages.DEFAULT) -> str:
        """Under the title: each live failure of a snippet the page embeds, and what is not run live."""
        embeds, _ = find_embeds(page, markdown)
        embedded = sorted({e.path for e in embeds if e.path.endswith(".py")})
        blocks = [b for rel in embedded if (b := self._block(rel, lang))]
        return under_title(markdown, "\n\n".join(blocks)) if blocks else markdown

    def _block(self, rel: str, lang: str) -> str | None:
        if self.run is None:
            return None
        run = self.results.get(rel)
        if run and run.result.outcome != "passed" and self._still_current(run.result):
            return failure_block(rel, run.detail, lang)
        try:
            snippet = load(self.root / rel)
        except (SnippetFormatError, OSError, UnicodeDecodeError):
            return None
        reason = skip_reason(snippet.devices, snippet.launched)
        if not reason:
            return None
        words = text(lang, "live.not_run", snippet=html.escape(rel), reason=text(lang, reason))
        return f'<p class="live-note">{words}</p>'

    def _still_current(self, result: report.SnippetResult) -> bool:
        """The run is of the file as it is now, and no later run replaced it in the report."""
        if not report.is_current(result, self.root):
            return False
        stored = report.load_results("cpu", self.reports_dir, root=self.root).get(result.snippet)
        return stored is None or (stored.via == VIA and stored.sha256 == result.sha256)


@dataclass(frozen=True)
class LiveRun:
    """One live run: its record (as the test run's) and what to show when it failed."""

    result: report.SnippetResult
    detail: str


def forget_built_pages(site_dir: Path, docs_dir: Path, snippets: set[str] | None) -> None:
    """Remove the built pages (every language) that embed one of `snippets` (all if None),
    and the Verification page, so that a dirty build rebuilds exactly those."""
    for page in languages.source_pages(docs_dir):
        src = page.relative_to(docs_dir).as_posix()
        if snippets is not None and src != "verification.md":
            embeds, _ = find_embeds(src, page.read_text(encoding="utf-8"))
            if not snippets & {e.path for e in embeds}:
                continue
        for lang in languages.LANGUAGES:
            built = site_dir / languages.built_page(src, lang)
            built.unlink(missing_ok=True)


# What shows something of every page's prose: the counts of its sentences and boxes.
_SHOWING_ALL = ("index.md", "verification.md", "errata.md")


def forget_edited_pages(site_dir: Path, docs_dir: Path, edited: tuple[str, ...]) -> None:
    """Remove the built pages an edit of these pages' prose changes (every language): the
    pages themselves (a Chinese page shows its English page's search terms) and the pages
    that count every page's sentences and boxes."""
    sources = {languages.source_page(Path(rel).relative_to(docs_dir.name)) for rel in edited}
    for src in sorted(sources | set(_SHOWING_ALL)):
        for lang in languages.LANGUAGES:
            (site_dir / languages.built_page(src, lang)).unlink(missing_ok=True)


def skip_reason(devices: tuple[str, ...], launched: bool) -> str:
    """The site_text key saying why a snippet is not run live, or ""."""
    if launched:
        return "live.launched"
    if "cpu" not in devices:
        return "live.cuda"
    return ""


def failure_block(rel: str, detail: str, lang: str = languages.DEFAULT) -> str:
    """A visible box with the diff or the traceback.

    Raw HTML on one line (newlines as `&#10;`, shown by `white-space: pre`), so
    that nothing in it is read as Markdown, a fence or an embed; and no `<pre>`,
    which the site reserves for code blocks (each gets exactly one badge).
    """
    shown = html.escape(detail).replace("`", "&#96;").replace("~", "&#126;").replace("\n", "&#10;")
    title = text(lang, "live.failed", snippet=html.escape(rel))
    advice = text(lang, "live.advice", stem=html.escape(Path(rel).stem))
    return (
        f'<div class="admonition failure live-failure"><p class="admonition-title">{title}</p>'
        f'<div class="live-detail"><code>{shown}</code></div><p>{advice}</p></div>'
    )


# The one session of this `mkdocs serve` process (None under `mkdocs build`).
SESSION: LiveSession | None = None


def start(root: Path, reports_dir: Path | None = None, run: Runner | None = None) -> LiveSession:
    """The session of this `mkdocs serve`: live verification on where torch is installed."""
    global SESSION
    if run is None and torch_importable():
        warm_up(root)
        run = run_in_child
        log.info(
            "Live verification: saved snippets are re-run (torch imported once, in a forkserver)"
        )
    elif run is None:
        log.info(
            "Live verification is off: torch is not installed here (docs-only "
            "requirements). Badges show the last `make test` report."
        )
    SESSION = LiveSession(root=root, reports_dir=reports_dir or root / ".reports", run=run)
    return SESSION


def stop() -> None:
    global SESSION
    SESSION = None
