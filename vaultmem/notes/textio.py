"""Bytes <-> text with the file's own format kept: BOM and line endings.

Every pure module works on LF text without a BOM; this module remembers how the file spelled
them so that an untouched note encodes back to the very same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from vaultmem.errors import NotUtf8
from vaultmem.notes import jsontext

BOM = "\ufeff"


@dataclass(frozen=True)
class TextFormat:
    """How a file spells what the pure core does not see."""

    bom: bool = False
    newline: str = "\n"  # "\r\n" only when *every* line break in the file is CRLF


DEFAULT_FORMAT = TextFormat()


def decode(raw: bytes, path: str | None = None) -> tuple[str, TextFormat]:
    """Decode UTF-8 bytes into LF text plus the format needed to encode them back."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        raise NotUtf8(
            f"not UTF-8 text (byte 0x{raw[err.start]:02x} at offset {err.start}); "
            "vaultmem leaves it untouched",
            path=path,
            line=line,
        ) from None
    if "\x00" in text:
        raise NotUtf8("binary file (NUL byte); vaultmem leaves it untouched", path=path)
    bom = text.startswith(BOM)
    if bom:
        text = text[1:]
    # "\r" is looked for first: a one-character search is far quicker on a long note.
    crlf = text.count("\r\n") if "\r" in text else 0
    # Mixed endings stay as they are (\r is then just a character of the line), so the
    # round trip is still byte-identical.
    if crlf and crlf == text.count("\n"):
        return text.replace("\r\n", "\n"), TextFormat(bom=bom, newline="\r\n")
    return text, TextFormat(bom=bom, newline="\n")


def encode(text: str, fmt: TextFormat = DEFAULT_FORMAT) -> bytes:
    """Encode LF text back into the file's format."""
    if fmt.newline != "\n":
        text = text.replace("\n", fmt.newline)
    if fmt.bom:
        text = BOM + text
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate cannot be UTF-8: it becomes U+FFFD rather than lose the whole write.
        return jsontext.clean(text).encode("utf-8")
