"""Front ends: foreign model formats lowered into the project IR (onnx/, tensorflow/, pytorch/)."""
