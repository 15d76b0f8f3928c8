"""Griffe extension: reStructuredText roles in docstrings become MkDocs cross-references.

The docstrings of gt4py say ``:class:`Dimension```, ``:func:`~gt4py.infra.caching.build_label```
or ``:meth:`text <Domain.replace>``` (Sphinx habits). mkdocstrings renders Markdown, where such
a role is literal text. This extension rewrites every role, once the whole `gt4py` namespace is
loaded, into a mkdocs-autorefs reference, so the docstrings stay as they are:

- ``:role:`target``` shows ``target``; ``:role:`~a.b.C``` shows ``C``; ``:role:`text <target>```
  shows ``text``.
- The target is resolved as Sphinx would, from where the docstring is: a full path
  (``gt4py.next.Dimension``), a name visible in the object's scopes (its class, its module with
  the module's imports, the parent packages), a path relative to the module (``._ir.Stencil``,
  ``.._table_layout.TableLayout``), ``gtx.`` for ``gt4py.next.``, or, last, a unique suffix of
  an object's path.
- A target that resolves to an object with a public path (no ``_`` component) becomes a
  required reference ``[`text`][path]``: if that object is not on any page of the site, the
  strict build fails ("Could not find cross-reference target") — a public object that the
  docstrings point to must be documented.
- A target that resolves only to private objects, a module (``:mod:``: a namespace, which the
  reference documents through its members), or something outside gt4py (``int``,
  ``numpy.ndarray``) becomes an optional reference: a link if the object is on a page,
  otherwise code text.
- An ``Args:`` line naming several parameters (``hash, repr: as in attrs``) becomes one line
  per parameter, which griffe's Google parser expects.
- A gt4py target that does not resolve (a typo, a renamed object) is a warning, so the strict
  build fails, naming the docstring and the role.

Configured in `mkdocs.yml`: `plugins.mkdocstrings.handlers.python.options.extensions`.
"""

from __future__ import annotations

import contextlib
import html
import logging
import re
from collections.abc import Iterator
from typing import Any

import griffe


_log = logging.getLogger("mkdocs.plugins.gt4py_sphinx_roles")

ROLE = re.compile(
    r":(?:py:)?(?P<role>class|func|meth|data|mod|attr|exc|obj|const):`(?P<body>[^`]+)`"
)
_EXPLICIT = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.DOTALL)
_ABBREVIATIONS = {"gtx": "gt4py.next"}
# ``a, b, c: text`` in a Google ``Args:`` section: one entry per name (griffe wants one).
_MULTI_NAME = re.compile(r"^(?P<indent>[ ]+)(?P<names>\w+(?:, \w+)+): (?P<text>.*)$", re.MULTILINE)


def _split_names(match: re.Match[str]) -> str:
    return "\n".join(
        f"{match['indent']}{name}: {match['text']}" for name in match["names"].split(", ")
    )


_ROOT = "gt4py"


def _is_public(path: str) -> bool:
    return not any(part.startswith("_") for part in path.split("."))


def _walk(obj: griffe.Object) -> Iterator[griffe.Object]:
    yield obj
    for member in obj.members.values():
        if member.is_alias:
            continue
        yield from _walk(member)  # type: ignore[arg-type]


def _module_of(obj: griffe.Object) -> griffe.Module:
    while not obj.is_module:
        obj = obj.parent  # type: ignore[assignment]
    return obj  # type: ignore[return-value]


class SphinxRoles(griffe.Extension):
    """Rewrite reStructuredText roles into autorefs references (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self.unresolved: list[str] = []

    # -- resolution ------------------------------------------------------------------------------
    def _lookup(self, collection: griffe.ModulesCollection, path: str) -> Any:
        try:
            return collection.get_member(path)
        except (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError):
            return None

    def _member(self, scope: Any, dotted: str) -> Any:
        current = scope
        for part in dotted.split("."):
            try:
                members = current.all_members if current.is_class else current.members
                current = members[part]
            except (KeyError, AttributeError, griffe.AliasResolutionError):
                return None
        return current

    def _resolve(self, obj: griffe.Object, target: str) -> Any:
        collection = obj.modules_collection
        head, _, rest = target.partition(".")
        if head in _ABBREVIATIONS:
            target = f"{_ABBREVIATIONS[head]}.{rest}" if rest else _ABBREVIATIONS[head]
        if target.startswith("."):
            dots = len(target) - len(target.lstrip("."))
            module = _module_of(obj)
            base = module if module.is_package else module.parent
            for _ in range(dots - 1):
                base = base.parent if base is not None else None
            found = self._member(base, target[dots:]) if base is not None else None
            if found is None:
                found = self._member(module, target[dots:])
            return found if found is not None else self._by_suffix(obj, target[dots:])
        if target.startswith(f"{_ROOT}."):
            found = self._lookup(collection, target)
            if found is not None:
                return found
        scope: Any = obj
        while scope is not None:  # the object, its class, its module (imports too), the packages
            found = self._member(scope, target)
            if found is not None:
                return found
            scope = scope.parent
        return self._by_suffix(obj, target)

    def _by_suffix(self, obj: griffe.Object, target: str) -> Any:
        root = obj.modules_collection.members.get(_ROOT)
        if root is None:
            return None
        suffix = f".{target}"
        matches = {
            candidate.path: candidate
            for candidate in _walk(root)
            if candidate.path.endswith(suffix)
        }
        return next(iter(matches.values())) if len(matches) == 1 else None

    @staticmethod
    def _paths(found: Any) -> list[str]:
        paths = [found.path]
        try:
            paths.append(found.canonical_path)
            paths.extend(found.aliases)
        except (griffe.AliasResolutionError, griffe.CyclicAliasError):
            pass
        return list(dict.fromkeys(paths))

    # -- rewriting -------------------------------------------------------------------------------
    def _replacement(self, obj: griffe.Object, match: re.Match[str]) -> str:
        body = match["body"].strip()
        explicit = _EXPLICIT.match(body)
        if explicit:
            text, target = explicit["text"], explicit["target"].strip()
        else:
            target = body
            text = ""
        short = target.startswith("~")
        target = target.lstrip("~")
        if not text:
            text = target.lstrip(".").rsplit(".", 1)[-1] if short else target.lstrip(".")
        code = f"<code>{html.escape(text)}</code>"
        found = self._resolve(obj, target)
        if found is None:
            if target.startswith((_ROOT, ".", *(f"{a}." for a in _ABBREVIATIONS))) or (
                "." not in target and target[:1].isupper()
            ):
                self.unresolved.append(f"{obj.path}: {match[0]}")
            return f'<autoref identifier="{html.escape(target)}" optional>{code}</autoref>'
        paths = self._paths(found)
        public = [path for path in paths if _is_public(path)]
        if public and match["role"] != "mod":
            return f"[{code}][{min(public, key=len)}]"
        identifier = found.path
        with contextlib.suppress(griffe.AliasResolutionError, griffe.CyclicAliasError):
            identifier = found.canonical_path
        return f'<autoref identifier="{html.escape(identifier)}" optional>{code}</autoref>'

    def _rewrite(self, obj: griffe.Object) -> None:
        docstring = obj.docstring
        if docstring is None or ":" not in docstring.value:
            return
        value = ROLE.sub(lambda match: self._replacement(obj, match), docstring.value)
        value = _MULTI_NAME.sub(_split_names, value)
        if value != docstring.value:
            docstring.value = value

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        if pkg.name != _ROOT:
            return
        for obj in _walk(pkg):
            self._rewrite(obj)
        for where in self.unresolved:
            _log.warning("unresolved reStructuredText role in the docstring of %s", where)
        self.unresolved.clear()
