"""What a page's code needs to run, and the sentences that tell a reader.

One source of truth: the header directives of the snippets a page shows
(docverify.contract.snippets): `# requires: cuda` (a CUDA GPU), `# requires: checkout`
(files of this repository) and `# launch: torchrun ...` (several processes).
From them the build writes, in the page's language (docverify.i18n.site_text):

- the first line of the page's `.py` download, a comment (`script_sentence`);
- the first line of the first Markdown cell of its `.ipynb` (`notebook_sentence`);
- the same sentence after the download links under the page's title;
- "needs a CUDA GPU" after a CUDA-only snippet in the "Run it yourself" line.

A download whose first line says nothing needs nothing: it runs as downloaded,
in an empty folder, on a CPU (tests/test_downloads.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from docverify.contract.snippets import SnippetFile
from docverify.i18n.languages import source_page
from docverify.i18n.site_text import text


@dataclass(frozen=True)
class Needs:
    cuda: bool = False
    checkout: bool = False
    launch: tuple[str, ...] = ()  # ("torchrun", "--nproc_per_node=2"): started by torchrun
    # Some blocks need CUDA, the rest not: the download runs on a CPU and skips those
    # blocks, saying so (docverify.contract.page_program.guarded_source).
    gpu_blocks: bool = False

    @classmethod
    def of(cls, snippets: Iterable[SnippetFile]) -> Needs:
        """What code taken from `snippets` needs: what any one of them declares."""
        found = tuple(snippets)
        return cls(
            cuda=any(s.needs_cuda for s in found),
            checkout=any(s.needs_checkout for s in found),
            launch=next((s.launch for s in found if s.launched), ()),
        )

    @classmethod
    def of_download(cls, snippets: Iterable[SnippetFile]) -> Needs:
        """What a page's download needs: a CUDA GPU only when all its code does; where some
        of it does not, its CUDA-only blocks are skipped without one (`gpu_blocks`)."""
        found = tuple(snippets)
        needs = cls.of(found)
        if needs.cuda and not all(s.needs_cuda for s in found):
            return cls(checkout=needs.checkout, launch=needs.launch, gpu_blocks=True)
        return needs

    def __bool__(self) -> bool:
        return self.cuda or self.checkout or bool(self.launch)

    def command(self, script: str) -> str:
        """How a reader starts `script`: `python x.py`, or the launch command."""
        return " ".join([*self.launch, script]) if self.launch else f"python {script}"

    def what(self, lang: str) -> str:
        """'a CUDA GPU and a checkout of ...': each need, in `lang`."""
        kinds = [("cuda", self.cuda), ("launch", bool(self.launch)), ("checkout", self.checkout)]
        return text(lang, "needs.and").join(text(lang, f"needs.{k}") for k, on in kinds if on)


def script_name(page: str) -> str:
    """The page's script as a reader's browser saves it: the English page's name, `reshape.py`."""
    return f"{PurePosixPath(source_page(page)).stem}.py"


def _sentence(needs: Needs, lang: str, how: str, **fields: str) -> str:
    where = text(lang, "needs.where.checkout") if needs.checkout else ""
    return text(
        lang, "needs.sentence", what=needs.what(lang), how=text(lang, how, where=where, **fields)
    )


def _with_gpu_blocks(needs: Needs, lang: str, sentence: str) -> str:
    blocks = text(lang, "needs.gpu_blocks") if needs.gpu_blocks else ""
    return " ".join(part for part in (sentence, blocks) if part)


def script_sentence(needs: Needs, lang: str, script: str) -> str:
    """What the `.py` download named `script` needs and the command that starts it ('' if nothing)."""
    if not needs:
        return _with_gpu_blocks(needs, lang, "")
    how = _sentence(needs, lang, "needs.how.script", command=f"`{needs.command(script)}`")
    return _with_gpu_blocks(needs, lang, how)


def notebook_sentence(needs: Needs, lang: str, script: str) -> str:
    """What the `.ipynb` download needs, and how to run it (a launched page: as the script)."""
    if not needs:
        return _with_gpu_blocks(needs, lang, "")
    if needs.launch:
        return _sentence(
            needs,
            lang,
            "needs.how.launched_notebook",
            script=f"`{script}`",
            command=f"`{needs.command(script)}`",
        )
    return _sentence(needs, lang, "needs.how.notebook")
