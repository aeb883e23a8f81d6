"""The rule sets as types, one module per region, found by name in a registry.

>>> get_variant("桂林").unit, get_variant("hunan").seats
('胡', (2, 4))

A new region is one module here: a ``Variant`` subclass decorated with ``@register``, and
an import below.
"""

from .base import Variant
from .registry import (
    UnknownVariant,
    canonical,
    find_variant,
    get_variant,
    register,
    unregister,
    variant_names,
    variants,
)

# the regions register themselves on import, in the order the product lists them
# isort: off
from .hunan import Hunan
from .guangxi import Guangxi
from .guilin import Guilin
# isort: on

__all__ = [
    "Guangxi", "Guilin", "Hunan", "UnknownVariant", "Variant", "canonical", "find_variant",
    "get_variant", "register", "unregister", "variant_names", "variants",
]
