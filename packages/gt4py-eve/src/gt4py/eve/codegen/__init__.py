"""Source generation from trees: templates per node class, and optional pretty-printing."""

from ._format import SUPPORTED_LANGUAGES as SUPPORTED_LANGUAGES, format_source as format_source
from ._generator import (
    TemplatedGenerator as TemplatedGenerator,
    TemplateMissingError as TemplateMissingError,
)
from ._templates import (
    FormatTemplate as FormatTemplate,
    JinjaTemplate as JinjaTemplate,
    Template as Template,
    TemplateDefinitionError as TemplateDefinitionError,
    TemplateError as TemplateError,
    TemplateRenderingError as TemplateRenderingError,
    as_fmt as as_fmt,
    as_jinja as as_jinja,
)


__all__ = [
    "SUPPORTED_LANGUAGES",
    "FormatTemplate",
    "JinjaTemplate",
    "Template",
    "TemplateDefinitionError",
    "TemplateError",
    "TemplateMissingError",
    "TemplateRenderingError",
    "TemplatedGenerator",
    "as_fmt",
    "as_jinja",
    "format_source",
]
