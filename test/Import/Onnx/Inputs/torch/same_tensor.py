"""same_tensor.py NAME A.safetensors B.safetensors...: prints whether tensor
NAME has the same bytes in every file that holds it (at least one of the B
files must)."""
import json
import sys


def tensors(path):
    data = open(path, "rb").read()
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + size])
    base = 8 + size
    return {k: data[base + v["data_offsets"][0]:base + v["data_offsets"][1]]
            for k, v in header.items() if k != "__metadata__"}


name, first, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
reference = tensors(first)[name]
holders = [p for p in rest if name in tensors(p)]
same = all(tensors(p)[name] == reference for p in holders)
print("%s: %d holder(s), %s" % (name, len(holders),
                                 "bit-identical" if holders and same
                                 else "DIFFERENT"))
