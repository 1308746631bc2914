"""The command line and exit status every runnable kernel script shares."""

import argparse

PLATFORMS = ["a2a3", "a2a3sim", "a5", "a5sim"]


def parse_kernel_args(description=None, argv=None):
    """-p/--platform (default a2a3sim) and -d/--device (default 0); `description` may be the
    script's __doc__ (its first line is used)."""
    first_line = description.strip().splitlines()[0] if description else None
    parser = argparse.ArgumentParser(description=first_line)
    parser.add_argument("-p", "--platform", default="a2a3sim", choices=PLATFORMS)
    parser.add_argument("-d", "--device", type=int, default=0)
    return parser.parse_args(argv)


def exit_on_failure(result):
    """Prints the failure report and exits with status 1 when the run did not pass."""
    if not result.passed:
        if result.error:
            print(result.error)
        raise SystemExit(1)
