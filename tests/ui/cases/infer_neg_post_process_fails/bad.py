import sys

print("bad news", file=sys.stderr)
sys.exit(1)
