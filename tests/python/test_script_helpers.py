"""golden.parse_kernel_args and golden.exit_on_failure: the shared script command line."""

import pytest

from golden import RunResult, exit_on_failure, parse_kernel_args


def test_defaults_and_values():
    args = parse_kernel_args("doc line\nmore", argv=[])
    assert (args.platform, args.device) == ("a2a3sim", 0)
    args = parse_kernel_args(argv=["-p", "a5sim", "--device", "3"])
    assert (args.platform, args.device) == ("a5sim", 3)


def test_unknown_platform_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stop:
        parse_kernel_args(argv=["-p", "a9"])
    assert stop.value.code == 2
    assert ("argument -p/--platform: invalid choice: 'a9' (choose from 'a2a3', 'a2a3sim', 'a5', 'a5sim')"
            in capsys.readouterr().err)


def test_exit_on_failure(capsys):
    exit_on_failure(RunResult(passed=True))
    with pytest.raises(SystemExit) as stop:
        exit_on_failure(RunResult(passed=False, error="Output(s) does not match golden: ['y']"))
    assert stop.value.code == 1
    assert capsys.readouterr().out == "Output(s) does not match golden: ['y']\n"
    with pytest.raises(SystemExit):
        exit_on_failure(RunResult(passed=False))
    assert capsys.readouterr().out == ""
