"""Live verification while editing: `mkdocs serve` re-runs a snippet when it is saved.

hooks/live_verification.py wires this into `mkdocs serve` (`make serve`):

- At start, a warm worker (tests/harness/live_worker.py) imports torch and the
  harness once. Only if torch is importable: with the docs-only requirements
  live verification is off, said in one log line, and badges follow the report.
- On a rebuild, `LiveSession.build` first finds what changed since the last
  one. Each saved snippet script is run by the worker, with the suite's own
  check (run in-process, `#>` lines compared), and its result is merged into
  the verification report (`via="mkdocs serve"`), so that the badge follows.
- When only snippet files (and static files such as figures) changed, only
  the pages that embed them and the Verification page are rebuilt, reusing
  the last full build's navigation and templates; anything else gets the usual
  full build. This keeps save-to-reload within about a second for a quick snippet.
- A failed run shows on the page: `annotate` puts the `#>` diff or the
  traceback in a box under the title. Snippets launched with torchrun or that
  need CUDA are not run live; the page says `make test` verifies them.

This module never imports torch: it runs inside the MkDocs process.
"""

from __future__ import annotations

import datetime as dt
import html
import importlib.util
import json
import logging
import os
import queue
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from docverify import verification
from docverify.embeds import SnippetFormatError, find_embeds
from docverify.snippets import load

log = logging.getLogger("mkdocs.live_verification")

VIA = "mkdocs serve"
READY_TIMEOUT_S = 120  # importing torch on a busy machine
RUN_GRACE_S = 15  # beyond a snippet's own time limit, before the worker is given up on
_TITLE = "# "


@dataclass(frozen=True)
class Skipped:
    """A snippet live verification does not run, and why."""

    snippet: str
    reason: str  # e.g. "it is launched with torchrun"


# --- the warm worker ------------------------------------------------------------------------


class WorkerUnavailable(RuntimeError):
    """The worker could not start (e.g. the harness cannot be imported here)."""


class Worker:
    """The process that runs snippets: python -m harness.live_worker, in `root`."""

    def __init__(self, root: Path, python: str = sys.executable) -> None:
        self.root = root
        self.python = python
        self.environment: dict[str, str] = {}
        self._proc: subprocess.Popen[str] | None = None
        self._replies: queue.Queue[dict | None] = queue.Queue()
        self._ready = threading.Event()
        self._lock = threading.Lock()
        self._reader: threading.Thread = threading.Thread()

    def start(self) -> None:
        self.close()  # a previous worker that died: release its pipes before replacing it
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(
                [str(self.root / "tests"), str(self.root / "src"), os.environ.get("PYTHONPATH", "")]
            ),
            "MPLBACKEND": "Agg",
        }
        self._replies = queue.Queue()
        self._ready = threading.Event()
        self._proc = subprocess.Popen(
            [self.python, "-m", "harness.live_worker"],
            cwd=self.root,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            start_new_session=True,  # Ctrl-C stops `mkdocs serve`, which then closes the worker
        )
        self._reader = threading.Thread(
            target=self._read, args=(self._proc, self._replies, self._ready), daemon=True
        )
        self._reader.start()

    def _read(self, proc: subprocess.Popen[str], replies: queue.Queue, ready: threading.Event):
        assert proc.stdout is not None
        for line in proc.stdout:
            try:
                reply = json.loads(line)
            except json.JSONDecodeError:
                log.warning("Live verification: unexpected worker output: %s", line.rstrip())
                continue
            if reply.get("ready"):
                self.environment = reply.get("environment", {})
                ready.set()
                log.info(
                    "Live verification: worker ready (torch %s, warmed up in %.1f s)",
                    reply.get("torch", "?"),
                    reply.get("warm_up_s", 0.0),
                )
            else:
                replies.put(reply)
        replies.put(None)  # the worker is gone
        if not ready.is_set():
            log.warning("Live verification: the worker exited while starting (see above)")

    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def wait_ready(self, timeout: float = READY_TIMEOUT_S) -> bool:
        deadline = time.monotonic() + timeout
        while not self._ready.wait(0.1):
            if not self.alive() or time.monotonic() > deadline:
                return False
        return True

    def check(self, snippet: str, device: str = "cpu", timeout: float = 60) -> dict:
        """Run one snippet; the worker's reply (see harness.live_worker.check)."""
        with self._lock:
            if not self.alive():
                log.info("Live verification: starting the worker again")
                self.start()
            if not self.wait_ready():
                self.close()
                raise WorkerUnavailable("the live verification worker did not start")
            assert self._proc is not None and self._proc.stdin is not None
            try:
                self._proc.stdin.write(json.dumps({"snippet": snippet, "device": device}) + "\n")
                self._proc.stdin.flush()
                reply = self._replies.get(timeout=timeout + RUN_GRACE_S)
            except (OSError, queue.Empty):
                reply = None
            if reply is None:
                self.close()
                return _failed(snippet, device, "the live verification worker stopped answering")
            return reply

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.stdin:
                proc.stdin.close()  # the worker's read loop ends
            proc.wait(timeout=3)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()
        self._reader.join(timeout=3)  # it reads to the end of the worker's output
        if proc.stdout:
            proc.stdout.close()


def _failed(snippet: str, device: str, detail: str) -> dict:
    return {
        "snippet": snippet,
        "device": device,
        "outcome": "failed",
        "sha256": "",
        "detail": detail,
    }


def torch_importable() -> bool:
    return importlib.util.find_spec("torch") is not None


# --- what changed between two builds ----------------------------------------------------------


def snapshot(root: Path, watched: list[Path]) -> dict[str, tuple]:
    """Per file under the watched paths: (mtime_ns, size), and for snippets their sha256."""
    found: dict[str, tuple] = {}
    for top in watched:
        paths = [top] if top.is_file() else (p for p in top.rglob("*") if p.is_file())
        for path in paths:
            if "__pycache__" in path.parts:
                continue
            try:
                stat = path.stat()
            except OSError:
                continue
            rel = _rel(path, root)
            stamp: tuple = (stat.st_mtime_ns, stat.st_size)
            if rel.startswith("snippets/"):
                stamp = (verification.file_sha256(path),)
            found[rel] = stamp
    return found


@dataclass(frozen=True)
class Changes:
    snippets: tuple[str, ...] = ()  # files under snippets/ whose content changed
    static: tuple[str, ...] = ()  # non-Markdown files under docs/ that changed
    other: tuple[str, ...] = ()  # anything else: added or removed files, pages, config, hooks

    @property
    def any(self) -> bool:
        return bool(self.snippets or self.static or self.other)


def changes(before: dict[str, tuple], after: dict[str, tuple], docs_dir: str = "docs") -> Changes:
    snippets, static, other = [], [], []
    for rel in sorted(set(before) | set(after)):
        if before.get(rel) == after.get(rel):
            continue
        if rel not in before or rel not in after:
            other.append(rel)
        elif rel.startswith("snippets/"):
            snippets.append(rel)
        elif rel.startswith(f"{docs_dir}/") and not rel.endswith(".md"):
            static.append(rel)
        else:
            other.append(rel)
    return Changes(tuple(snippets), tuple(static), tuple(other))


def _rel(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


# --- the session: one `mkdocs serve` --------------------------------------------------------


@dataclass
class SiteState:
    """What the last full build left, for rebuilding single pages."""

    config: object = None
    files: object = None
    nav: object = None
    env: object = None
    complete: bool = False


@dataclass
class LiveSession:
    root: Path
    reports_dir: Path
    worker: Worker | None = None
    results: dict[str, dict] = field(default_factory=dict)  # latest live reply per snippet
    skipped: dict[str, Skipped] = field(default_factory=dict)
    site: SiteState = field(default_factory=SiteState)
    watched: list[Path] = field(default_factory=list)
    baseline: dict[str, tuple] = field(default_factory=dict)
    docs_rel: str = "docs"  # the docs folder, relative to root
    _background: threading.Thread | None = None

    @property
    def enabled(self) -> bool:
        return self.worker is not None

    # -- set-up

    def start_worker(self) -> None:
        if not torch_importable():
            log.info(
                "Live verification is off: torch is not installed here (docs-only "
                "requirements). Badges show the last `make test` report."
            )
            return
        self.worker = Worker(self.root)
        self.worker.start()
        log.info("Live verification: starting a warm worker; saved snippets are re-run")

    def attach(self, server, builder, config) -> None:
        """Take over the dev server's rebuild, so that a save runs the snippet first."""
        docs = Path(config["docs_dir"])
        self.watched = [docs, *(Path(p) for p in config["watch"])]
        if config.config_file_path:
            self.watched.append(Path(config.config_file_path))
        self.baseline = snapshot(self.root, self.watched)
        self.docs_rel = _rel(docs, self.root)

        def build() -> None:
            self.build(builder)

        server.builder = build

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()

    # -- one rebuild

    def build(self, full_build) -> None:
        self._finish_background()
        now = snapshot(self.root, self.watched)
        changed = changes(self.baseline, now, self.docs_rel)
        self.baseline = now
        ran = self.verify([s for s in changed.snippets if s.endswith(".py")])
        if changed.any and not changed.other and self.site.complete:
            start = time.perf_counter()
            try:
                pages = self.rebuild_pages(changed, ran)
            except Exception as exc:  # then the full build says what is wrong
                log.debug("Live verification: page rebuild failed (%s); full build", exc)
            else:
                log.info(
                    "Rebuilt %s in %.2f s",
                    ", ".join(pages) or "nothing",
                    time.perf_counter() - start,
                )
                # After the reload: files hooks generate from all pages (downloads) take
                # longer than the pages themselves; the next build waits for them.
                self._background = threading.Thread(target=self._regenerate, daemon=True)
                self._background.start()
                return
        if changed.other:
            more = f" and {len(changed.other) - 3} more" if len(changed.other) > 3 else ""
            log.info("Full rebuild: %s changed%s", ", ".join(changed.other[:3]), more)
        full_build()

    def _regenerate(self) -> None:
        try:
            self.site.files = regenerate_hook_files(self.site.config, self.site.files)
        except Exception as exc:  # the next build is a full one, which will say what is wrong
            log.debug("Live verification: regenerating hook files failed (%s)", exc)
            self.site.complete = False

    def _finish_background(self) -> None:
        if self._background is not None:
            self._background.join()
            self._background = None

    def verify(self, snippets: list[str]) -> list[str]:
        """Run the saved snippets live; merge their results into the report. Returns those run."""
        ran = []
        for rel in snippets:
            path = self.root / rel
            if not path.is_file() or Path(rel).name.startswith("_"):
                continue  # a private helper: the snippets that import it are run by `make test`
            try:
                snippet = load(path)
            except (SnippetFormatError, OSError, UnicodeDecodeError) as exc:
                self.results[rel] = {
                    **_failed(rel, "cpu", str(exc)),
                    "sha256": verification.file_sha256(path) or "",
                }
                ran.append(rel)
                continue
            reason = skip_reason(snippet.devices, snippet.launched)
            if reason or not self.enabled:
                if reason:
                    self.skipped[rel] = Skipped(rel, reason)
                continue
            self.skipped.pop(rel, None)
            assert self.worker is not None
            start = time.perf_counter()
            try:
                reply = self.worker.check(rel, "cpu", timeout=snippet.timeout_s)
            except WorkerUnavailable:
                log.warning(
                    "Live verification is off from now on: its worker could not start "
                    "(its error is above). Badges show the last `make test` report."
                )
                self.worker.close()
                self.worker = None
                break
            self.results[rel] = reply
            ran.append(rel)
            self._record(reply)
            log.info(
                "Live verification: %s %s (%.2f s)",
                rel,
                "passed" if reply["outcome"] == "passed" else "FAILED",
                time.perf_counter() - start,
            )
            if reply["outcome"] != "passed":
                log.warning("%s", reply.get("detail", ""))
        return ran

    def _record(self, reply: dict) -> None:
        assert self.worker is not None
        environment = {
            "torch": "?",
            "python": "?",
            "machine": "?",
            **self.worker.environment,
            "date": dt.datetime.now(dt.timezone.utc).date().isoformat(),
            "commit": verification.current_commit(),
        }
        result = verification.SnippetResult(
            snippet=reply["snippet"],
            device=reply.get("device", "cpu"),
            outcome=reply["outcome"],
            sections=tuple(reply.get("sections", ())),
            duration_s=reply.get("duration_s", 0.0),
            sha256=reply.get("sha256", ""),
            via=VIA,
            **{k: environment[k] for k in ("date", "commit", "torch", "python", "machine")},
        )
        verification.merge_results([result], self.reports_dir, root=self.root)

    def rebuild_pages(self, changed: Changes, ran: list[str]) -> list[str]:
        """Rebuild only the pages that embed a changed file (and the Verification page)."""
        from mkdocs.commands.build import _build_page, _populate_page
        from mkdocs.structure.files import InclusionLevel

        site = self.site
        config, files = site.config, site.files
        for hook in config["hooks"].values():  # e.g. hooks/verification.py re-reads the report
            if hasattr(hook, "on_config"):
                hook.on_config(config)
        for rel in changed.static:
            file = files.get_file_from_path(rel.removeprefix(f"{self.docs_rel}/"))
            if file is not None:
                file.copy_file()
        embedding = set(changed.snippets)
        pages = [
            file
            for file in files.documentation_pages(inclusion=InclusionLevel.is_in_serve)
            if file.page is not None
            and (
                embedding & embedded_files(file.src_uri, Path(file.abs_src_path))
                or (ran and file.src_uri == "verification.md")
            )
        ]
        doc_files = files.documentation_pages(inclusion=InclusionLevel.is_in_serve)
        for file in pages:
            _populate_page(file.page, config, files)
        for file in pages:
            excluded = file.inclusion.is_excluded()
            _build_page(file.page, config, doc_files, site.nav, site.env, excluded=excluded)
        return [file.src_uri for file in pages]

    # -- on the page

    def annotate(self, page: str, markdown: str) -> str:
        """Under the page title: each live failure of a snippet it embeds, and what is not run live."""
        embedded = sorted(p for p in embedded_in(page, markdown) if p.endswith(".py"))
        blocks = [b for rel in embedded if (b := self._block(rel))]
        if not blocks:
            return markdown
        lines = markdown.splitlines()
        title = next((i for i, line in enumerate(lines) if line.startswith(_TITLE)), -1)
        lines[title + 1 : title + 1] = ["", *blocks, ""]
        return "\n".join(lines) + "\n"

    def _block(self, rel: str) -> str | None:
        if not self.enabled:
            return None
        reply = self.results.get(rel)
        if reply and reply["outcome"] != "passed" and self._still_current(reply):
            return failure_block(rel, reply.get("detail", ""))
        skipped = self.skipped.get(rel)
        if skipped is None:
            try:
                snippet = load(self.root / rel)
            except (SnippetFormatError, OSError, UnicodeDecodeError):
                return None
            reason = skip_reason(snippet.devices, snippet.launched)
            skipped = Skipped(rel, reason) if reason else None
        if skipped is not None:
            return (
                f'<p class="live-note">Live verification does not run <code>{html.escape(rel)}'
                f"</code>: {html.escape(skipped.reason)}. It is verified by <code>make test</code> "
                "only.</p>"
            )
        return None

    def _still_current(self, reply: dict) -> bool:
        """The reply is about the file as it is now, and no later run replaced it in the report."""
        rel = reply["snippet"]
        if reply.get("sha256") != verification.file_sha256(self.root / rel):
            return False
        stored = verification.load_results("cpu", self.reports_dir, root=self.root).get(rel)
        return stored is None or (stored.via == VIA and stored.sha256 == reply.get("sha256"))


def regenerate_hook_files(config, files):
    """Files the hooks generate from snippets (e.g. hooks/downloads.py's page programs): anew."""
    hooks = config["hooks"]  # name in mkdocs.yml -> module
    made_by_hooks = [f for f in files if getattr(f, "generated_by", None) in hooks]
    if not made_by_hooks:
        return files
    for file in made_by_hooks:
        files.remove(file)
    for name, hook in hooks.items():
        if hasattr(hook, "on_files"):
            config.plugins._current_plugin = name  # what File.generated records as generated_by
            try:
                files = hook.on_files(files, config=config) or files
            finally:
                config.plugins._current_plugin = None
    for file in files:
        if getattr(file, "generated_by", None) in hooks:
            file.copy_file()
    return files


def skip_reason(devices: tuple[str, ...], launched: bool) -> str:
    if launched:
        return "it is launched with torchrun (several processes)"
    if "cpu" not in devices:
        return "it needs CUDA"
    return ""


def failure_block(rel: str, detail: str) -> str:
    """A visible box with the diff or the traceback.

    Raw HTML on one line (newlines as `&#10;`, shown by `white-space: pre`), so
    that nothing in it is read as Markdown, a fence or an embed; and no `<pre>`,
    which the site reserves for code blocks (each gets exactly one badge).
    """
    text = html.escape(detail).replace("`", "&#96;").replace("~", "&#126;")
    text = text.replace("\n", "&#10;")
    stem = html.escape(Path(rel).stem)
    return (
        '<div class="admonition failure live-failure">'
        f'<p class="admonition-title">Live verification FAILED: {html.escape(rel)}</p>'
        f'<div class="live-detail"><code>{text}</code></div>'
        "<p>Fix the snippet, or if the new output is right, record it with "
        f"<code>make update-examples K={stem}</code>.</p></div>"
    )


def embedded_in(page: str, markdown: str) -> set[str]:
    embeds, _ = find_embeds(page, markdown)
    return {e.path for e in embeds}


def embedded_files(page: str, path: Path) -> set[str]:
    try:
        return embedded_in(page, path.read_text(encoding="utf-8"))
    except OSError:
        return set()


# The one session of this `mkdocs serve` process (None under `mkdocs build`).
SESSION: LiveSession | None = None


def start(root: Path, reports_dir: Path | None = None) -> LiveSession:
    global SESSION
    if SESSION is not None:
        SESSION.close()
    SESSION = LiveSession(root=root, reports_dir=reports_dir or root / ".reports")
    SESSION.start_worker()
    return SESSION


def stop() -> None:
    global SESSION
    if SESSION is not None:
        SESSION.close()
    SESSION = None
