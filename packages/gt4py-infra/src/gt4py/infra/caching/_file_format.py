"""The on-disk format of one FileCache entry, and its validation.

An entry is one file::

    header (64 bytes, little-endian)
        magic            8s   b"GT4PYCE\\n"
        format version   H
        payload kind     B    0: raw bytes, 1: pickle
        reserved         B
        key digest       16s  the CacheKey digest, binary
        parts length     I
        payload length   Q
        parts checksum   Q    xxh3_64 of the parts block
        payload checksum Q    xxh3_64 of the payload
        header checksum  Q    xxh3_64 of the 56 bytes above
    parts block          UTF-8 JSON object of the key's named parts (for diagnostics and listings)
    payload

Reading checks every field, so a truncated, overwritten or misplaced file is reported as
:class:`CorruptEntry` with a reason, never returned as data.
"""

from __future__ import annotations

import dataclasses
import enum
import errno
import io
import json
import os
import pathlib
import struct
from collections.abc import Callable, Mapping
from typing import Final

import xxhash

from ._keys import CacheKey


MAGIC: Final = b"GT4PYCE\n"
FORMAT_VERSION: Final = 1
_PREFIX: Final = struct.Struct("<8sHBB16sIQQQ")
_HEADER: Final = struct.Struct("<8sHBB16sIQQQQ")
HEADER_SIZE: Final = _HEADER.size


class PayloadKind(enum.IntEnum):
    BYTES = 0
    PICKLE = 1


class CorruptEntry(Exception):
    """An entry file exists but cannot be trusted; the message is the reason."""


def unopenable(error: OSError, symlink_reason: str, subject: str = "") -> CorruptEntry:
    """The :class:`CorruptEntry` for a file of an entry that ``O_NOFOLLOW`` could not open:
    ``symlink_reason`` where it is a symlink, else ``"<subject>unreadable: <why>"``."""
    if error.errno == errno.ELOOP:
        return CorruptEntry(symlink_reason)
    return CorruptEntry(f"{subject}unreadable: {error.strerror or error}")


@dataclasses.dataclass(frozen=True)
class _Header:
    kind: PayloadKind
    digest: str
    parts_length: int
    payload_length: int
    parts_checksum: int
    payload_checksum: int


def encode(key: CacheKey, kind: PayloadKind, payload: bytes | memoryview) -> list[bytes]:
    """The entry file for ``payload`` under ``key``, as pieces to write in order."""
    parts = json.dumps(dict(key.parts), ensure_ascii=False, separators=(",", ":")).encode()
    prefix = _PREFIX.pack(
        MAGIC,
        FORMAT_VERSION,
        kind,
        0,
        bytes.fromhex(key.digest),
        len(parts),
        len(payload),
        xxhash.xxh3_64_intdigest(parts),
        xxhash.xxh3_64_intdigest(payload),
    )
    header = prefix + xxhash.xxh3_64_intdigest(prefix).to_bytes(8, "little")
    return [header, parts, bytes(payload) if isinstance(payload, memoryview) else payload]


def read_payload(
    path: pathlib.Path,
    digest: str,
    check_owner: Callable[[pathlib.Path, os.stat_result], None] | None = None,
) -> tuple[PayloadKind, bytes]:
    """The validated payload of the entry at ``path`` for the key with ``digest``.

    Raises FileNotFoundError when there is no entry, :class:`CorruptEntry` when there is one
    that fails any check (including being unreadable). ``check_owner`` is given the entry's
    ``fstat`` before anything is read (it raises to refuse the entry). A symlink is not
    followed: an entry is a regular file.
    """
    try:
        fd = os.open(path, os.O_RDONLY | _O_CLOEXEC | _O_BINARY | _O_NOFOLLOW)
    except FileNotFoundError:
        raise
    except NotADirectoryError as error:  # a parent is a file: there can be no entry
        raise FileNotFoundError(str(error)) from error
    except OSError as error:
        raise unopenable(error, "a symlink sits where the entry file belongs") from error
    try:
        info = os.fstat(fd)
        if check_owner is not None:
            check_owner(path, info)
        size = info.st_size
        if size <= _READ_AT_ONCE:
            # One read and a slice beat a second system call for small entries.
            data = _read_exactly(fd, size)
            header = _read_header(data[:HEADER_SIZE], size, digest)
            payload = data[HEADER_SIZE + header.parts_length :]
        else:
            header = _read_header(os.read(fd, HEADER_SIZE), size, digest)
            os.lseek(fd, header.parts_length, os.SEEK_CUR)
            payload = _read_exactly(fd, header.payload_length)
    except IsADirectoryError as error:
        raise CorruptEntry("a directory sits where the entry file belongs") from error
    except OSError as error:
        raise CorruptEntry(f"unreadable: {error.strerror or error}") from error
    finally:
        os.close(fd)
    if xxhash.xxh3_64_intdigest(payload) != header.payload_checksum:
        raise CorruptEntry("payload checksum mismatch")
    return header.kind, payload


def read_key_parts(path: pathlib.Path, digest: str | None = None) -> dict[str, str]:
    """The named key parts recorded in the entry at ``path`` (the payload is not read).

    ``digest``, when given, must match the recorded one. Raises FileNotFoundError or
    :class:`CorruptEntry` like :func:`read_payload`.
    """
    try:
        with open_for_inspection(path) as file:
            size = os.fstat(file.fileno()).st_size
            raw_header = file.read(HEADER_SIZE)
            recorded = raw_header[16:32].hex() if len(raw_header) == HEADER_SIZE else ""
            header = _read_header(raw_header, size, digest or recorded)
            parts = _read_exactly(file.fileno(), header.parts_length)
    except FileNotFoundError:
        raise
    except OSError as error:
        raise CorruptEntry(f"unreadable: {error.strerror or error}") from error
    if xxhash.xxh3_64_intdigest(parts) != header.parts_checksum:
        raise CorruptEntry("key parts checksum mismatch")
    try:
        decoded = json.loads(parts)
    except ValueError as error:
        raise CorruptEntry(f"key parts are not valid JSON: {error}") from error
    if not isinstance(decoded, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in decoded.items()
    ):
        raise CorruptEntry("key parts are not a mapping of strings")
    return dict(decoded)


def open_for_inspection(path: pathlib.Path) -> io.FileIO:
    """Open ``path`` for reading without counting as a use of the entry.

    `clean --older-than` trims by last access; listing entries or explaining a miss must
    not make every entry look freshly used. O_NOATIME needs file ownership: fall back.
    """
    if _O_NOATIME:
        try:
            return io.FileIO(os.open(path, os.O_RDONLY | _O_NOATIME | _O_CLOEXEC), "rb")
        except PermissionError:
            pass
    return io.FileIO(path, "rb")


_O_NOATIME: Final[int] = getattr(os, "O_NOATIME", 0)
_O_CLOEXEC: Final[int] = getattr(os, "O_CLOEXEC", 0)
_O_BINARY: Final[int] = getattr(os, "O_BINARY", 0)
_O_NOFOLLOW: Final[int] = getattr(os, "O_NOFOLLOW", 0)
_READ_AT_ONCE: Final = 64 << 10


def _read_header(raw: bytes, file_size: int, digest: str) -> _Header:
    if len(raw) < HEADER_SIZE:
        raise CorruptEntry(f"truncated header ({file_size} bytes)")
    magic, version, kind, _, digest_bytes, parts_length, payload_length, parts_sum, payload_sum = (
        _PREFIX.unpack_from(raw)
    )
    if magic != MAGIC:
        raise CorruptEntry("not a gt4py cache entry (bad magic)")
    if version != FORMAT_VERSION:
        raise CorruptEntry(f"format version {version}, expected {FORMAT_VERSION}")
    (header_sum,) = struct.unpack_from("<Q", raw, _PREFIX.size)
    if xxhash.xxh3_64_intdigest(raw[: _PREFIX.size]) != header_sum:
        raise CorruptEntry("header checksum mismatch")
    if digest_bytes.hex() != digest:
        raise CorruptEntry(f"entry records key {digest_bytes.hex()[:8]}, not {digest[:8]}")
    if kind not in PayloadKind._value2member_map_:
        raise CorruptEntry(f"unknown payload kind {kind}")
    expected_size = HEADER_SIZE + parts_length + payload_length
    if file_size != expected_size:
        what = "truncated" if file_size < expected_size else "trailing data"
        raise CorruptEntry(f"{what}: {file_size} bytes, expected {expected_size}")
    return _Header(PayloadKind(kind), digest, parts_length, payload_length, parts_sum, payload_sum)


def _read_exactly(fd: int, size: int) -> bytes:
    data = os.read(fd, size)
    if len(data) == size:
        return data
    # Short reads are legal (regular files rarely do it): gather the rest.
    pieces = [data]
    remaining = size - len(data)
    while remaining:
        piece = os.read(fd, remaining)
        if not piece:
            raise CorruptEntry(f"truncated while reading ({size - remaining} of {size} bytes)")
        pieces.append(piece)
        remaining -= len(piece)
    return b"".join(pieces)


__all__: list[str] = []
