"""stored_in.py NAME A.safetensors B.safetensors...: prints which of the
files hold tensor NAME (by base name), e.g. "tok.weight: rank-0.safetensors"."""
import json
import os
import sys


def names(path):
    data = open(path, "rb").read()
    size = int.from_bytes(data[:8], "little")
    return set(json.loads(data[8:8 + size])) - {"__metadata__"}


name = sys.argv[1]
holders = [os.path.basename(p) for p in sys.argv[2:] if name in names(p)]
print("%s: %s" % (name, " ".join(holders) if holders else "(none)"))
