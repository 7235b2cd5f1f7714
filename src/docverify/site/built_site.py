"""Build the site with `mkdocs build --strict` and serve it on 127.0.0.1.

Shared by the browser tests (tests/conftest.py) and the measurements that need
the built site in a browser (scripts/compare_search.py,
scripts/lighthouse_accessibility.py).
"""

from __future__ import annotations

import functools
import gzip
import http.server
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from docverify.paths import REPO_ROOT

# One page of each type, for the accessibility checks (tests/test_accessibility.py with
# axe-core, scripts/lighthouse_accessibility.py): (type, path in the English edition).
PAGE_TYPES = [
    ("home", ""),
    ("section index", "losses/"),
    ("page with code and boxes", "losses/binary/"),
    ("page with figures", "data/spatial/"),
    ("error atlas page (the longest)", "errors/shape_errors/"),
    ("Errata (generated)", "errata/"),
    ("Verification (generated tables)", "verification/"),
    ("Tags", "tags/"),
]


def build(
    site_dir: Path, config: Path | None = None, root: Path = REPO_ROOT, site_url: str | None = None
) -> None:
    """Build into site_dir (for `site_url`, if given, instead of mkdocs.yml's); raise with
    MkDocs' own output if the strict build fails."""
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet"]
    command += ["--site-dir", str(site_dir)] + (["-f", str(config)] if config else [])
    # The plugin (an entry point) from that checkout's own src/, as `make build` runs it.
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(root / "src")}
    if site_url:
        env["SITE_URL"] = site_url
    done = subprocess.run(
        command,
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
    )
    if done.returncode != 0:
        raise RuntimeError(f"mkdocs build failed:\n{done.stderr[-4000:]}")


def build_once(site_dir: Path, lock: Path, root: Path = REPO_ROOT) -> None:
    """Build into site_dir unless a build holding `lock` finished it already (the test
    suite's workers share one build). A failed build leaves no site_dir behind."""
    from filelock import FileLock  # the test stack's (measurements run with it too)

    with FileLock(lock):
        if site_dir.is_dir():
            return
        partial = site_dir.with_name(site_dir.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        build(partial, root=root)
        partial.rename(site_dir)


def start_building(site_dir: Path, lock: Path, root: Path = REPO_ROOT) -> subprocess.Popen:
    """build_once in a process of its own: the suite starts it before the snippet tests,
    so that a worker that needs the site later finds it built instead of waiting for it."""
    env = {**os.environ, "PYTHONPATH": str(root / "src")}  # that checkout's own docverify
    command = [sys.executable, "-m", "docverify.site.built_site", str(site_dir), str(lock), str(root)]
    return subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def built_for(site_dir: Path) -> str:
    """The address a built site was made for (its site_url, ending in `/`), from the home
    page's canonical link."""
    home = (site_dir / "index.html").read_text(encoding="utf-8")
    found = re.search(r'<link rel="canonical" href="([^"]+)"', home)
    if not found:
        raise ValueError(f"{site_dir / 'index.html'}: no canonical link (no site_url?)")
    return found[1]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


class _Compressed(_Quiet):
    """Text files gzip-compressed for a client that accepts it, as a static host serves them."""

    TEXT = (".html", ".css", ".js", ".json", ".svg", ".xml", ".txt", ".py", ".ipynb")

    def do_GET(self) -> None:
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (accepts and path.suffix in self.TEXT and path.is_file()):
            super().do_GET()
            return
        body = gzip.compress(path.read_bytes(), compresslevel=6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def served(site_dir: Path, *, compressed: bool = False) -> Iterator[str]:
    """The site's address, e.g. http://127.0.0.1:40123, while the block runs; `compressed`:
    text files gzip-compressed, as a static host serves them (Lighthouse's measure)."""
    handler = functools.partial(_Compressed if compressed else _Quiet, directory=str(site_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def built_and_served(
    site_dir: Path, config: Path | None = None, root: Path = REPO_ROOT, *, compressed: bool = False
) -> Iterator[str]:
    """Build into site_dir for the address it is then served at, and serve it.

    The site's absolute links (canonical, hreflang) then point at this server, and so
    does what Material's language switcher fetches from them (a sitemap.xml beside
    each hreflang link): a page loads nothing from the address mkdocs.yml names.
    """
    site_dir.mkdir(parents=True, exist_ok=True)
    with served(site_dir, compressed=compressed) as url:
        build(site_dir, config, root, site_url=f"{url}/")
        yield url


if __name__ == "__main__":  # start_building's process: SITE_DIR LOCK ROOT
    build_once(*map(Path, sys.argv[1:4]))
