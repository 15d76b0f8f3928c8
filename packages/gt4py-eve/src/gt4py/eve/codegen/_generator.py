"""``TemplatedGenerator``: turn a tree into source text, one template per node class."""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any, ClassVar

from gt4py.eve.datamodels._type_check import class_name
from gt4py.eve.nodes._registry import NODE_FIELDS, NODE_VALUES
from gt4py.eve.visitors import NodeVisitor

from ._templates import Template


class TemplateMissingError(LookupError):
    """A node class with neither a template nor a ``visit_`` method in the generator."""


class TemplatedGenerator(NodeVisitor):
    """A visitor that renders each node with the template named after its class.

    Class attributes that are templates (``as_fmt(...)``, ``as_jinja(...)``) are keyed by the
    node class name; lookup follows the node's MRO and, at each class, a ``visit_<Name>``
    method wins over a template. A template sees the node's fields already rendered (lists of
    nodes become lists of strings, enum members their value), the keyword arguments of the
    visit, ``_this_node`` and ``_this_generator``.

        class CGenerator(TemplatedGenerator):
            Literal = as_fmt("{value}")
            BinOp = as_fmt("({left} {op} {right})")
            Call = as_jinja("{{ func }}({{ args | join(', ') }})")
    """

    _eve_templates: ClassVar[dict[str, Template]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        templates: dict[str, Template] = {}
        for klass in reversed(cls.__mro__):
            for name, member in vars(klass).items():
                if isinstance(member, Template):
                    templates[name] = member
                elif name in templates:  # redefined as something else: no longer a template
                    del templates[name]
        for name, member in vars(cls).items():
            if isinstance(member, Template):
                member.check(f"node class '{name}' in {class_name(cls)}")
        cls._eve_templates = templates

    @classmethod
    def apply(cls, root: Any, **kwargs: Any) -> Any:
        """Render ``root`` with a fresh generator."""
        return cls().visit(root, **kwargs)

    @classmethod
    def _eve_handler_for(cls, klass: type) -> Callable[..., Any] | None:
        template = cls._eve_templates.get(klass.__name__)
        if template is None:
            return None
        where = f"node class '{klass.__name__}' in {class_name(cls)}"

        def render_template(generator: Any, node: Any, **kwargs: Any) -> str:
            values = {**kwargs, **generator.transform_fields(node, **kwargs)}
            values["_this_node"] = node
            values["_this_generator"] = generator
            return template.render(values, where)

        return render_template

    def transform_fields(self, node: Any, **kwargs: Any) -> dict[str, Any]:
        """The node's fields, each rendered by this generator."""
        cls = node.__class__
        if cls not in NODE_FIELDS:
            return {}
        return {
            name: self.visit(value, **kwargs)
            for name, value in zip(NODE_FIELDS[cls], NODE_VALUES[cls](node), strict=True)
        }

    def generic_visit(self, node: Any, **kwargs: Any) -> Any:
        cls = node.__class__
        if cls in NODE_FIELDS:
            searched = ", ".join(
                f"visit_{klass.__name__}/{klass.__name__}" for klass in cls.__mro__[:-1]
            )
            raise TemplateMissingError(
                f"{class_name(type(self))} has no template or visit method for node class "
                f"{class_name(cls)} (looked for {searched})"
            )
        if cls is list or cls is tuple or cls is set or cls is frozenset:
            return cls(self.visit(item, **kwargs) for item in node)
        if cls is dict:
            return {key: self.visit(value, **kwargs) for key, value in node.items()}
        if isinstance(node, enum.Enum):
            return str(node.value)
        return node
