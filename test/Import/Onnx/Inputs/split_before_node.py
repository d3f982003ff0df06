"""split_before_node.py IN.mlir NODE OUT.mlir: writes IN.mlir (printed with
--mlir-print-debuginfo) with a pipe.split marker before the first operation
of the ONNX node NODE (its location "NODE:OpType"), so that pipe-partition's
manual strategy cuts the model there."""
import re
import sys

text = open(sys.argv[1]).read()
alias = re.search(r'^(#loc\d+) = loc\("%s:' % re.escape(sys.argv[2]), text,
                  re.M)
if not alias:
    sys.exit("no location for node '%s'" % sys.argv[2])
lines = text.split("\n")
first = next(k for k, line in enumerate(lines)
             if line.lstrip().startswith("%") and
             line.endswith("loc(%s)" % alias.group(1)))
lines.insert(first, "    pipe.split")
open(sys.argv[3], "w").write("\n".join(lines))
