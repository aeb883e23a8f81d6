"""Zipai Scorer: photograph a winning Zipai hand, score it, settle the table."""

__version__ = "0.1.0"
