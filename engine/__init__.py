"""The rules engine: cards, groups, decomposition, rule sets, scoring. Imports nothing of ours."""

from .api import Hand, parse_input, score, score_hand, score_json, score_simultaneous, simultaneous_result
from .cards import ALL_CARDS, CARD_NAMES, Card, parse_cards
from .decompose import splits_into_groups
from .errors import CardError, GroupError, InputError, RulesError, ZipaiError
from .groups import Group, Kind, State
from .result import Result, ScoredGroup, Simultaneous
from .rules import PRESETS, Options, Rules, get_rules, input_options, load_rules_file, rules_from_flag
from .total import score_total
from .variants import UnknownVariant, Variant, get_variant, register, variants

__all__ = [
    "ALL_CARDS", "CARD_NAMES", "PRESETS", "Card", "CardError", "Group", "GroupError", "Hand", "InputError",
    "Kind", "Options", "Result", "Rules", "RulesError", "ScoredGroup", "Simultaneous", "State",
    "UnknownVariant", "Variant", "ZipaiError", "get_rules", "get_variant", "input_options", "load_rules_file",
    "parse_cards", "parse_input", "register", "rules_from_flag", "score", "score_hand", "score_json",
    "score_simultaneous", "score_total", "simultaneous_result", "splits_into_groups", "variants",
]
