"""MkDocs hook: do once what the two language builds would each do alike.

mkdocs-static-i18n runs the whole build again for the 简体中文 edition (in
the same process). Two pieces of that work give the same result both times:

- Highlighting: the two editions embed exactly the same code blocks in the
  same order (tests/test_translations.py), and Pygments was a third of the
  build's time. pymdownx.highlight's block highlighter is memoised on all it
  reads (the code, the block's options, the highlighter's settings), so the
  second language reuses the first one's HTML. Inline code (returned as an
  element, not text) is not memoised.
- Compiling the theme's Jinja templates: MkDocs makes a new environment per
  build; a shared in-memory bytecode cache (keyed by Jinja on the template's
  name and source checksum) compiles each template once.
"""

from __future__ import annotations

import functools

from jinja2 import BytecodeCache
from pymdownx.highlight import Highlight

_original = Highlight.highlight
_done: dict[tuple, str] = {}


def _settings(highlighter: Highlight) -> tuple:
    """The highlighter's options (not its Markdown instance, a new one per page)."""
    return tuple(
        sorted((name, repr(value)) for name, value in vars(highlighter).items() if name != "md")
    )


def _frozen(value):
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, list | tuple | set):
        return tuple(_frozen(v) for v in value)
    return value


@functools.wraps(_original)
def _highlight_once(self, src, language, *args, **kwargs):
    if kwargs.get("inline") or (len(args) > 5 and args[5]):
        return _original(self, src, language, *args, **kwargs)
    key = (_settings(self), src, language, _frozen(args), _frozen(kwargs))
    if key not in _done:
        _done[key] = _original(self, src, language, *args, **kwargs)
    return _done[key]


class _CompiledTemplates(BytecodeCache):
    def __init__(self) -> None:
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket) -> None:
        if bucket.key in self.compiled:
            bucket.bytecode_from_string(self.compiled[bucket.key])

    def dump_bytecode(self, bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


_templates = _CompiledTemplates()


def on_config(config):
    Highlight.highlight = _highlight_once


def on_env(env, config, files):
    env.bytecode_cache = _templates
    return env


def on_shutdown():
    Highlight.highlight = _original
    _done.clear()
    _templates.compiled.clear()
