import sys

print("post", *sys.argv[1:])
