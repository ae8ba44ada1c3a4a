"""The cushim command of this package: ``cushim ...`` (the script pip puts
on PATH) and ``python -m cushim ...`` both replace this process with
bin/cushim, which finds lib/libcushim.so beside it."""
import os
import sys

_PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "cushim")


def main() -> None:
    """Run bin/cushim with this process's arguments; its exit status is ours."""
    try:
        os.execv(_PROGRAM, [_PROGRAM] + sys.argv[1:])
    except OSError as e:
        sys.exit(f"cushim: cannot run {_PROGRAM}: {e.strerror}")


if __name__ == "__main__":
    main()
