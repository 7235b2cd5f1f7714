"""Static checks of the code a page shows: no hidden names, no private imports.

A page's program (docverify.page_program) must run on its own. Two things
make it fail for a reader and can be seen without running it:

- a name it uses but never binds: not assigned, imported, defined, or a
  builtin (the binding sits in a hidden line of the snippet file, or in a
  helper module), or bound only further down the page;
- an import of anything but the published dependencies the pages may use
  (`ALLOWED_PACKAGES`) and the standard library: never `ptnotes`, `docverify`
  or a helper file next to the snippet.

Names are resolved with Python's scoping rules: function, lambda, class and
comprehension scopes, `global` and `nonlocal`, `del`, `import a.b` (binds
`a`), `except ... as e`, the walrus operator and `match` captures. Code at
module level (and in class bodies and comprehensions it runs) is checked in
page order; function bodies only need the name bound somewhere on the page,
since they run when called.
"""

from __future__ import annotations

import ast
import builtins
import re
import sys
from dataclasses import dataclass, field

from docverify.page_program import PageProgram

ALLOWED_PACKAGES = frozenset({"torch", "torchvision", "einops", "numpy", "matplotlib", "PIL"})
# Defined in every module run as a script and in a notebook's namespace.
_MODULE_NAMES = frozenset(
    {"__name__", "__doc__", "__builtins__", "__spec__", "__loader__", "__package__"}
)
_KNOWN = frozenset(dir(builtins)) | _MODULE_NAMES


def import_allowed(module: str) -> bool:
    top = module.split(".", maxsplit=1)[0]
    return top in ALLOWED_PACKAGES or top in sys.stdlib_module_names


@dataclass
class _Scope:
    kind: str  # module, function, class, comprehension
    parent: _Scope | None
    local: set[str] = field(default_factory=set)  # bound here (Python makes them local)
    declared_global: set[str] = field(default_factory=set)
    declared_nonlocal: set[str] = field(default_factory=set)

    @property
    def deferred(self) -> bool:
        """Whether code in this scope runs later than where it is written (a function body)."""
        scope: _Scope | None = self
        while scope is not None:
            if scope.kind == "function":
                return True
            scope = scope.parent
        return False


@dataclass(frozen=True)
class _Use:
    name: str
    line: int
    scope: _Scope
    statement: int  # index of the top-level statement it belongs to


@dataclass(frozen=True)
class _Binding:
    name: str
    scope: _Scope
    statement: int
    line: int
    deletes: bool = False


class _Collector(ast.NodeVisitor):
    """One pass over the program: every scope, binding and use of a name."""

    def __init__(self) -> None:
        self.module = _Scope("module", None)
        self.scope = self.module
        self.statement = 0
        self.uses: list[_Use] = []
        self.bindings: list[_Binding] = []
        self.imports: list[tuple[str, int]] = []  # (module, line)
        self.star_imports: list[int] = []

    # -- bookkeeping --------------------------------------------------------------------------

    def bind(
        self, name: str, line: int, *, deletes: bool = False, scope: _Scope | None = None
    ) -> None:
        scope = scope or self.scope
        scope.local.add(name)
        self.bindings.append(_Binding(name, scope, self.statement, line, deletes))

    def use(self, name: str, line: int) -> None:
        self.uses.append(_Use(name, line, self.scope, self.statement))

    def in_scope(self, kind: str, visit) -> None:
        outer = self.scope
        self.scope = _Scope(kind, outer)
        try:
            visit()
        finally:
            self.scope = outer

    def visit_Module(self, node: ast.Module) -> None:
        for index, statement in enumerate(node.body):
            self.statement = index
            self.visit(statement)

    # -- names --------------------------------------------------------------------------------

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.use(node.id, node.lineno)
        else:
            self.bind(node.id, node.lineno, deletes=isinstance(node.ctx, ast.Del))

    def visit_Global(self, node: ast.Global) -> None:
        self.scope.declared_global.update(node.names)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.scope.declared_nonlocal.update(node.names)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.imports.append((alias.name, node.lineno))
            self.bind(alias.asname or alias.name.split(".")[0], node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = "." * node.level + (node.module or "")
        self.imports.append((module, node.lineno))
        for alias in node.names:
            if alias.name == "*":
                self.star_imports.append(node.lineno)
            else:
                self.bind(alias.asname or alias.name, node.lineno)

    def visit_Call(self, node: ast.Call) -> None:
        # importlib.import_module("x") / __import__("x") with a literal name
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if (
            name in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            self.imports.append((node.args[0].value, node.lineno))
        self.generic_visit(node)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.type is not None:
            self.visit(node.type)
        if node.name:
            self.bind(node.name, node.lineno)
        for statement in node.body:
            self.visit(statement)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        target = self.scope
        while target.kind == "comprehension":  # := binds in the enclosing function or module
            target = target.parent
        self.bind(node.target.id, node.lineno, scope=target)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        if node.pattern is not None:
            self.visit(node.pattern)
        if node.name:
            self.bind(node.name, node.lineno)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name:
            self.bind(node.name, node.lineno)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        self.generic_visit(node)
        if node.rest:
            self.bind(node.rest, node.lineno)

    # -- scopes -------------------------------------------------------------------------------

    def _arguments_outside(self, args: ast.arguments) -> None:
        for default in [*args.defaults, *args.kw_defaults]:
            if default is not None:
                self.visit(default)
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None and arg.annotation is not None:
                self.visit(arg.annotation)

    def _bind_arguments(self, args: ast.arguments) -> None:
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None:
                self.bind(arg.arg, arg.lineno)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for decorator in node.decorator_list:
            self.visit(decorator)
        self._arguments_outside(node.args)
        if node.returns is not None:
            self.visit(node.returns)
        self.bind(node.name, node.lineno)

        def body() -> None:
            self._bind_arguments(node.args)
            for statement in node.body:
                self.visit(statement)

        self.in_scope("function", body)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._arguments_outside(node.args)

        def body() -> None:
            self._bind_arguments(node.args)
            self.visit(node.body)

        self.in_scope("function", body)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for expression in [*node.decorator_list, *node.bases, *node.keywords]:
            self.visit(expression)
        self.bind(node.name, node.lineno)
        self.in_scope("class", lambda: [self.visit(s) for s in node.body])

    def _comprehension(self, node, elements: list[ast.expr]) -> None:
        generators = node.generators
        self.visit(generators[0].iter)  # evaluated in the enclosing scope

        def body() -> None:
            for index, generator in enumerate(generators):
                if index:
                    self.visit(generator.iter)
                self.visit(generator.target)
                for condition in generator.ifs:
                    self.visit(condition)
            for element in elements:
                self.visit(element)

        self.in_scope("comprehension", body)

    def visit_ListComp(self, node: ast.ListComp) -> None:
        self._comprehension(node, [node.elt])

    visit_SetComp = visit_ListComp
    visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node: ast.DictComp) -> None:
        self._comprehension(node, [node.key, node.value])


def _resolves_locally(use: _Use) -> bool:
    """Whether `use` finds its name in a function or class scope rather than the module."""
    scope = use.scope
    if scope.kind != "module":
        if use.name in scope.declared_global:
            return False
        if use.name in scope.declared_nonlocal or use.name in scope.local:
            return True
    parent = scope.parent
    while parent is not None and parent.kind != "module":
        # Enclosing function scopes are visible; enclosing class bodies are not.
        if parent.kind != "class" and (
            use.name in parent.local or use.name in parent.declared_nonlocal
        ):
            return True
        parent = parent.parent
    return False


@dataclass(frozen=True)
class Problem:
    line: int  # program line
    message: str


def _module_bindings(collector: _Collector) -> list[_Binding]:
    """Bindings of module-level names, including `global x; x = ...` in functions."""
    found = []
    for binding in collector.bindings:
        scope = binding.scope
        if scope.kind == "module" or binding.name in scope.declared_global:
            found.append(binding)
    return found


def name_problems(source: str) -> list[Problem]:
    """Names the code uses without binding them first (one problem per name)."""
    collector = _Collector()
    collector.visit(ast.parse(source))
    bindings = _module_bindings(collector)
    bound_at: dict[str, list[_Binding]] = {}
    for binding in bindings:
        bound_at.setdefault(binding.name, []).append(binding)
    problems: dict[str, Problem] = {}
    for use in collector.uses:
        if use.name in problems or use.name in _KNOWN or _resolves_locally(use):
            continue
        events = bound_at.get(use.name, [])
        if use.name == "__file__":
            problems[use.name] = Problem(
                use.line, "`__file__` is used: the page's code has no file of its own in a notebook"
            )
            continue
        if not any(not b.deletes for b in events):
            star = (
                f" (a `from ... import *` at line {collector.star_imports[0]} does not count)"
                if collector.star_imports
                else ""
            )
            problems[use.name] = Problem(
                use.line, f"`{use.name}` is used but never defined or imported on the page{star}"
            )
            continue
        if use.scope.deferred:
            continue  # a function body: the name must exist by the time it is called
        before = [b for b in events if b.statement <= use.statement]
        if not before:
            problems[use.name] = Problem(
                use.line, f"`{use.name}` is used before the page defines it (further down)"
            )
        elif all(b.deletes for b in before if b.statement == max(e.statement for e in before)):
            problems[use.name] = Problem(use.line, f"`{use.name}` is used after `del {use.name}`")
    for binding in bindings:
        earlier = [b for b in bound_at[binding.name] if b.statement <= binding.statement]
        if binding.deletes and binding.name not in problems and all(b.deletes for b in earlier):
            problems[binding.name] = Problem(
                binding.line, f"`del {binding.name}` deletes a name the page never defined"
            )
    return sorted(problems.values(), key=lambda p: p.line)


def import_problems(source: str) -> list[Problem]:
    collector = _Collector()
    collector.visit(ast.parse(source))
    allowed = ", ".join(sorted(ALLOWED_PACKAGES, key=str.lower))
    return [
        Problem(
            line,
            f"imports `{module}`: shown code imports only {allowed} and the standard library",
        )
        for module, line in collector.imports
        if not import_allowed(module)
    ]


def program_problems(program: PageProgram) -> list[str]:
    """Everything that stops the page's code from running on its own, naming page and line."""
    try:
        ast.parse(program.source)
    except SyntaxError as exc:
        return [f"{program.where(exc.lineno or 0)}: the page's code is not valid Python: {exc.msg}"]
    problems = [
        *name_problems(program.source),
        *import_problems(program.source),
    ]
    return [f"{program.where(p.line)}: {p.message}" for p in sorted(problems, key=lambda p: p.line)]


_SETUP_BOX = re.compile(r'^\s*\?\?\?\s+example\s+"Set-up\b')
_SETUP_HEADING = re.compile(r"^#{2,6}\s+Set-up\b")


def setup_problems(program: PageProgram, markdown: str) -> list[str]:
    """The page's first code block embeds the `setup` section, shown as the set-up.

    That is: inside a collapsed `??? example "Set-up: ..."` box, or right under a
    `## Set-up...` heading where setting up is the lesson (a DDP script's ranks).
    """
    if not program.parts:
        return []
    first = program.parts[0].embed
    rule = (
        "the first code block embeds the `setup` section (imports and data), in a collapsed "
        '`??? example "Set-up: ..."` box'
    )
    if first.section != "setup":
        return [f"{first.where}: {rule}; this one embeds `{first.section or first.path}`"]
    lines = markdown.splitlines()
    indent = len(lines[first.line - 1]) - len(lines[first.line - 1].lstrip())
    for line in reversed(lines[: first.line - 1]):
        stripped = line.strip()
        if not stripped or stripped.startswith(("```", "~~~")):
            continue
        if _SETUP_BOX.match(line) or (indent == 0 and _SETUP_HEADING.match(stripped)):
            return []
        if len(line) - len(line.lstrip()) < indent or indent == 0:
            break
    return [f"{first.where}: {rule} (or under a `## Set-up` heading)"]
