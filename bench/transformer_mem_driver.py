"""Times EleutherAI's transformer_mem.py (cookbook, calc_mem) in-process, for bench/bench.mjs.

Usage: python3 transformer_mem_driver.py SCRIPT_PATH ITERATIONS < argv-lists.json
SCRIPT_PATH is the script file (the repository does not ship it); only the lines from its first
`import` line up to its `if __name__ == "__main__":` block are run (a copy saved from a web page may
carry text around the code; the command-line block is not needed). Each input argv list is parsed once with the script's own
config_parser(); then calc_mem(args) runs over all of them ITERATIONS times with its printing sent
to a null stream. Prints JSON: {"per_call_us": [median of each pass...], "median_us": ...}.
"""
import io
import json
import statistics
import sys
import time
import types
from contextlib import redirect_stdout


class _Null(io.TextIOBase):
    def write(self, s):
        return len(s)


def load(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("import "))
    end = next((i for i, line in enumerate(lines) if line.startswith("if __name__")), len(lines))
    module = types.ModuleType("transformer_mem")
    module.__file__ = path
    exec(compile("\n".join(lines[start:end]) + "\n", path, "exec"), module.__dict__)
    return module


def main():
    path, iterations = sys.argv[1], int(sys.argv[2])
    tm = load(path)
    argvs = json.load(sys.stdin)
    parser = tm.config_parser()
    args = [parser.parse_args(a) for a in argvs]
    passes = []
    with redirect_stdout(_Null()):
        for _ in range(iterations):
            start = time.perf_counter()
            for a in args:
                tm.calc_mem(a)
            passes.append((time.perf_counter() - start) / len(args) * 1e6)
    print(json.dumps({"per_call_us": passes, "median_us": statistics.median(passes),
                      "python": sys.version.split()[0]}))


if __name__ == "__main__":
    main()
