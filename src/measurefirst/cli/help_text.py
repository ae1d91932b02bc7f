"""The help's language and its layout in a language other than English.

argparse prints ``--help`` while it parses, before there are arguments to ask for a language: the language
is read from the command line first (:func:`help_lang`: ``--lang zh`` or ``--lang=zh`` anywhere before
``--``, else the locale, as for every command's words), and the parser is built in it. English help is
argparse's own, as it always was; in another language :func:`formatter_for` gives the formatter a parser
uses: argparse's words (``usage:``) from the words table, and the help texts wrapped by the width they take
on a terminal (a Chinese character takes two columns; a line may break between two of them, not before a
closing mark such as ``，``)."""

from __future__ import annotations

import argparse
import re
import unicodedata
from typing import Iterable, Sequence

from ..render.words import LANGS, default_lang, word

#: ``--lang X``, ``--lang=X`` (or the unique abbreviation ``--lan``), as argparse reads it.
_LANG_OPTION = re.compile(r"--lang?(?:=(?P<value>.*))?")


def _given(argv: Sequence[str], *, leading: bool) -> str | None:
    """The language the last ``--lang`` before ``--`` gives (``leading``: before the command, the first
    argument that is not an option), or None."""
    found, i = None, 0
    while i < len(argv) and argv[i] != "--" and not (leading and not argv[i].startswith("-")):
        m = _LANG_OPTION.fullmatch(argv[i])
        if m is not None:
            value = m.group("value")
            if value is None:  # --lang X
                value = argv[i + 1] if i + 1 < len(argv) else None
                i += 1
            found = value if value in LANGS else found
        i += 1
    return found


def argv_lang(argv: Sequence[str]) -> str | None:
    """The language ``--lang`` gives anywhere on the command line (before ``--``), or None."""
    return _given(argv, leading=False)


def leading_lang(argv: Sequence[str]) -> str | None:
    """The language ``--lang`` gives before the command (``measurefirst --lang zh bench ...``), or None."""
    return _given(argv, leading=True)


def help_lang(argv: Sequence[str]) -> str:
    """The language of the help: the command line's ``--lang``, else the locale's."""
    return argv_lang(argv) or default_lang()


_OPENING = "（《「『【“‘"
_CLOSING = "，。；：、）》」』】！？”’"


def _wide(c: str) -> bool:
    return unicodedata.east_asian_width(c) in "WF"


def width(text: str) -> int:
    """The columns ``text`` takes on a terminal: two for a wide (Chinese) character, one for the others."""
    return sum(2 if _wide(c) else 1 for c in text)


#: What a line may not be broken inside: a run of narrow non-space characters (an option, a number, a word)
#: or one wide character, with the opening marks before it and the closing marks after it.
_PIECE = re.compile(rf"\s+|[{_OPENING}]*(?:[^\s{_OPENING}{_CLOSING}\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]+"
                    rf"|[^\s{_OPENING}{_CLOSING}])[{_CLOSING}]*|\S")


def wrap(text: str, columns: int) -> list[str]:
    """``text`` in lines of at most ``columns`` columns (a piece wider than that on a line of its own),
    broken at spaces or between wide characters; whitespace runs read as one space."""
    lines: list[str] = []
    line, used = "", 0
    for piece in _PIECE.findall(" ".join(text.split())):
        if piece.isspace():
            if line:
                line, used = line + " ", used + 1
            continue
        w = width(piece)
        if line.strip() and used + w > columns:
            lines.append(line.rstrip())
            line, used = "", 0
        line, used = line + piece, used + w
    if line.strip():
        lines.append(line.rstrip())
    return lines


class _Wide(argparse.HelpFormatter):
    """argparse's layout, with the words in :attr:`lang` and the lines wrapped by their width on a terminal."""

    lang = LANGS[-1]

    def format_help(self) -> str:
        text = super().format_help()
        for group in ("positionals", "options"):  # argparse ends a heading with ':', the language its own mark
            title = word(f"help.argparse.{group}", self.lang)
            text = text.replace(f"\n{title}:\n", f"\n{title}{word('help.argparse.heading_end', self.lang)}\n")
        return text

    def _split_lines(self, text: str, width: int) -> list[str]:
        return wrap(text, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(indent + line for line in wrap(text, width - len(indent)))

    def _format_usage(self, usage: str | None, actions: Iterable[argparse.Action],
                      groups: Iterable[argparse._MutuallyExclusiveGroup], prefix: str | None) -> str:
        if prefix is not None:
            return super()._format_usage(usage, actions, groups, prefix)
        english = "usage: "  # laid out with argparse's prefix, then its columns given to the language's word
        text = super()._format_usage(usage, actions, groups, english)
        said = word("help.argparse.usage", self.lang)
        return text.replace(english, said + " " * max(len(english) - width(said), 1), 1)


def formatter_for(cls: type[argparse.HelpFormatter], lang: str) -> type[argparse.HelpFormatter]:
    """The formatter class a parser in ``lang`` uses in place of ``cls``: ``cls`` itself in English, else
    ``cls`` (its handling of the description kept: raw or filled) laid out by :class:`_Wide` in ``lang``."""
    if lang == LANGS[0]:
        return cls
    bases = (_Wide,) if cls is argparse.HelpFormatter else (cls, _Wide)
    return type(f"{cls.__name__}_{lang}", bases, {"lang": lang})
