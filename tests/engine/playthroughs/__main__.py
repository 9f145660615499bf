"""Check or regenerate the golden playthrough files.

    .venv/bin/python -m tests.engine.playthroughs              # check every file
    .venv/bin/python -m tests.engine.playthroughs --regenerate [NAME ...]
"""

from __future__ import annotations

import argparse
import sys

from . import explain, load, names, path_of, record, regenerate


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.engine.playthroughs", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--regenerate", action="store_true", help="rewrite the files from the scripts")
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"playthroughs (default: all): {', '.join(names())}")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(names()))
    if unknown:
        parser.error(f"unknown playthrough {', '.join(unknown)} (known: {', '.join(names())})")
    if args.regenerate:
        for path in regenerate(args.names):
            print(f"wrote {path}")
        return 0
    failed = 0
    for name in args.names or names():
        if not path_of(name).exists():
            print(f"{name}: no file {path_of(name)}; run with --regenerate")
            failed += 1
            continue
        problem = explain(name, load(name), record(name))
        print(problem or f"{name}: unchanged")
        failed += problem is not None
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
