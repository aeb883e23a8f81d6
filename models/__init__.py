"""Training and export of the card detector (needs the ``[train]`` extra: torch), and the shipped
model files (finder.onnx, reader.onnx, manifest.json, sample.jpg) as package data."""
