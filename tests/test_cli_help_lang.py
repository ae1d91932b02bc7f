"""``--help`` in the command's language (issue 37): ``measurefirst --lang zh COMMAND --help``, ``COMMAND
--lang zh --help`` and a Chinese locale print every command's help line, description and option help in
Chinese (argparse's own words too); English is what it always was, byte for byte."""

from __future__ import annotations

import argparse
import re

import pytest

from measurefirst.cli.commands import COMMANDS, build_parser, main
from measurefirst.cli.help_text import argv_lang, leading_lang, width, wrap
from measurefirst.render.words import word

CHINESE = re.compile(r"[\u4e00-\u9fff]")
LOCALE_VARS = ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")


@pytest.fixture
def locale(monkeypatch: pytest.MonkeyPatch):
    """Set the locale of the command (``LANG``), the others cleared; a fixed terminal width."""
    monkeypatch.setenv("COLUMNS", "100")

    def set_lang(value: str) -> None:
        for var in LOCALE_VARS:
            monkeypatch.delenv(var, raising=False)
        monkeypatch.setenv("LANG", value)

    set_lang("C")
    return set_lang


def squeezed(text: str) -> str:
    """``text`` without its whitespace: what wrapping it into lines leaves the same."""
    return "".join(text.split())


def help_of(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 0, argv
    return capsys.readouterr().out


def helps(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Each shown option's help text by its flags (or its name), and the command's own description."""
    out = {"(description)": parser.description or ""}
    for action in parser._actions:
        if action.help and action.help != argparse.SUPPRESS:
            out["/".join(action.option_strings) or action.dest] = action.help
    return out


def commands(lang: str) -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser(lang)._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub._name_parser_map)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_option_of_every_command_has_its_help_in_chinese(command, locale, capsys):
    out = help_of(["--lang", "zh", command, "--help"], capsys)
    en, zh = helps(commands("en")[command]), helps(commands("zh")[command])
    assert en.keys() == zh.keys()
    for flags, text in zh.items():
        assert text != en[flags] and CHINESE.search(text), f"{command} {flags}: not in Chinese: {text!r}"
        assert squeezed(text.replace("%%", "%")) in squeezed(out), f"{command} {flags}: not shown whole"
    assert out.startswith("用法：") and "选项：" in out and "显示此帮助信息并退出" in out
    assert "usage:" not in out and "show this help" not in out
    assert help_of([command, "--lang", "zh", "--help"], capsys) == out  # --lang after the command too


def test_the_list_of_commands_is_chinese_and_the_examples_stay_commands(locale, capsys):
    out = help_of(["--lang", "zh", "--help"], capsys)
    assert "位置参数：" in out and "显示程序的版本号并退出" in out and "先测量，再优化" in out
    for name in commands("zh"):
        assert squeezed(word(f"help.{name}", "zh")) in squeezed(out), name
    bench = help_of(["--lang", "zh", "bench", "--help"], capsys)
    assert 'measurefirst bench "a @ a" -s "a = torch.randn(512, 512)" --save matmul512' in bench


@pytest.mark.parametrize("argv", [[], *([c] for c in sorted(COMMANDS))], ids=lambda a: " ".join(a) or "measurefirst")
def test_english_is_the_same_with_lang_en_and_without(argv, locale, capsys):
    plain = help_of([*argv, "--help"], capsys)
    assert help_of(["--lang", "en", *argv, "--help"], capsys) == plain
    if argv:
        assert help_of([*argv, "--lang", "en", "--help"], capsys) == plain
    assert not CHINESE.search(plain)


def test_a_chinese_locale_gives_the_help_in_chinese_and_lang_en_overrides_it(locale, capsys):
    locale("zh_CN.UTF-8")
    out = help_of(["bench", "--help"], capsys)
    assert out.startswith("用法：") and "中位数的 95% 置信区间" in out  # argparse's %% printed as %
    assert "默认 1%" in out
    english = help_of(["bench", "--lang", "en", "--help"], capsys)
    locale("C")
    assert english == help_of(["bench", "--help"], capsys)


def test_lang_before_the_command_is_the_commands_language():
    from measurefirst.cli.parser import parse_command

    assert parse_command(build_parser(), ["--lang", "zh", "bench", "x"]).lang == "zh"
    assert parse_command(build_parser(), ["--lang", "zh", "bench", "x", "--lang", "en"]).lang == "en"
    assert parse_command(build_parser(), ["--lang=zh", "report", "r.json", "-o", "r.html"]).lang == "zh"
    assert parse_command(build_parser(), ["report", "r.json", "-o", "r.html"]).lang == "en"  # a page: English
    assert parse_command(build_parser(), ["bench", "x"]).lang is None  # the locale's, when the words are said


def test_the_language_is_read_from_the_command_line_before_parsing():
    assert argv_lang(["bench", "x", "--lang", "zh", "--help"]) == "zh"
    assert argv_lang(["bench", "--lang=zh"]) == argv_lang(["bench", "--lan", "zh"]) == "zh"
    assert argv_lang(["bisect", "a", "b", "--", "pytest", "--lang", "zh"]) is None  # after --: not ours
    assert argv_lang(["bench", "--lang", "fr"]) is None and argv_lang(["bench", "--lang"]) is None
    assert leading_lang(["--lang", "zh", "bench", "--lang", "en"]) == "zh"
    assert leading_lang(["bench", "--lang", "zh"]) is None


def test_chinese_lines_are_wrapped_by_their_width_on_a_terminal():
    text = "用计数代替计时：在一个新进程中统计每次调用的用户态指令数（用硬件计数器，否则用 valgrind 的 callgrind）"
    lines = wrap(text, 30)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert all(width(line) <= 30 for line in lines)
    assert not any(line[0] in "，。；：、）" for line in lines)  # no line starts with a closing mark
    assert width("中文 ab") == 7


def test_step_help_states_the_build_contract_its_errors_state():
    from measurefirst.render.words import LANGS, WORDS, text
    from measurefirst.tools.targets import STEP_CONTRACT

    assert text(WORDS, "help.step.contract", LANGS[0]) == STEP_CONTRACT
