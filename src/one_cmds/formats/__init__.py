"""Reading and writing TFLite and circle files, and the ONE metadata tables."""
