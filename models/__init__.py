"""The shipped model as package data: finder.onnx, reader.onnx and their int8-weight twins,
manifest.json (what the runtime reads), provenance.json (how the model was trained and what it
measured; docs/model-card.md is written from it) and sample.jpg. The runtime imports this package
only to find these files, so it imports nothing.

Its modules are the training and export behind ``zipai train`` (the ``[train]`` extra: torch) and
the evaluation and benches behind ``zipai eval`` and ``zipai bench scan|train-step``."""
