"""What the content-provider mutants share: their catalogue, which opens the reference with a mutated service or handler."""

from __future__ import annotations

from functools import partial
from typing import Any

from ctxconform.reference.content_provider import ContentProviderFactory, ContentProviderHandler, ContentProviders, open_handler
from ctxconform.reference.mutants import Catalogue

__all__ = ["CATALOGUE", "Json"]

Json = dict[str, Any]


def _adopt(variant: type) -> ContentProviderFactory:
    if issubclass(variant, ContentProviders):
        return ContentProviderFactory(open=partial(open_handler, service=variant))
    if issubclass(variant, ContentProviderHandler):
        return ContentProviderFactory(open=partial(open_handler, handler=variant))
    raise TypeError(f"{variant.__name__} is neither ContentProviders nor ContentProviderHandler: a mutant changes one of them")


CATALOGUE = Catalogue("content-provider", adopt=_adopt)
