"""The rule sets as types, one module per region, found by name in a registry.

>>> get_variant("桂林").unit, get_variant("hunan").seats
('胡', (2, 4))

A new region is one module: a ``Variant`` subclass with its ``Special`` records, named in
``registry.BUILT_IN`` (or passed to ``register``, as a test does with its own).
"""

from .base import Names, Special, Variant, Win
from .guangxi import Guangxi
from .guilin import Guilin
from .hunan import Hunan
from .registry import (
    BUILT_IN,
    UnknownVariant,
    canonical,
    find_special,
    find_variant,
    get_variant,
    region_names,
    register,
    unregister,
    variant_names,
    variants,
)

__all__ = [
    "BUILT_IN", "Guangxi", "Guilin", "Hunan", "Names", "Special", "UnknownVariant", "Variant", "Win",
    "canonical", "find_special", "find_variant", "get_variant", "region_names", "register", "unregister",
    "variant_names", "variants",
]
