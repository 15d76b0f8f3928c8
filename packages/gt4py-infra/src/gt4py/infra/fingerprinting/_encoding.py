"""The byte encoding of leaf values: one self-delimiting token per value.

Every token starts with a one-byte tag naming its kind, and its length is determined by its
own bytes (fixed width, a ``;`` terminator after digits, or a ``<length>:`` prefix). So a
token is never a prefix of a different token and a node's concatenated tokens decode in
exactly one way: equal byte strings mean equal structure. The tags are part of the
persistent format; changing one changes every strict fingerprint (bump FORMAT_PREFIX).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import xxhash


# Folded into every root digest: a new format must never produce old fingerprints.
FORMAT_PREFIX: Final = b"gt4py-fingerprint/1\0"

NONE_TOKEN: Final = b"N"
TRUE_TOKEN: Final = b"T"
FALSE_TOKEN: Final = b"F"
ELLIPSIS_TOKEN: Final = b"E"
NOT_IMPLEMENTED_TOKEN: Final = b"I"

# Composite nodes: the token of a child node is its 16-byte digest behind this tag.
NODE_REF_TAG: Final = b"@"


def encode_int(value: int) -> bytes:
    # Hexadecimal: decimal conversion of huge ints is capped (sys.set_int_max_str_digits).
    return b"i%x;" % value


def encode_float(value: float) -> bytes:
    # float.hex is exact (1.0 and 1.0000000000000002 differ), keeps the sign of zero and maps
    # every NaN to "nan", so equal-looking values encode identically on every machine.
    return b"f" + value.hex().encode("ascii") + b";"


def encode_complex(value: complex) -> bytes:
    return b"c" + value.real.hex().encode("ascii") + b";" + value.imag.hex().encode("ascii") + b";"


def encode_str(value: str) -> bytes:
    # Length in characters, then UTF-8: unambiguous without encoding twice. surrogatepass keeps
    # lone surrogates (legal in Python str) encodable.
    return b"s%d:" % len(value) + value.encode("utf-8", "surrogatepass")


def encode_bytes(value: bytes) -> bytes:
    return b"b%d:" % len(value) + value


def encode_bytearray(value: bytearray) -> bytes:
    return b"y%d:" % len(value) + bytes(value)


def encode_name(tag: bytes, name: str) -> bytes:
    """A tagged, length-prefixed text: qualified names, module names, field names."""
    return tag + encode_str(name)


def encode_range(value: range) -> bytes:
    return b"r%x,%x,%x;" % (value.start, value.stop, value.step)


def encode_backref(distance: int) -> bytes:
    """A reference to the node ``distance`` levels up the current path (a cycle)."""
    return b"^%d;" % distance


def encode_identity(serial: int) -> bytes:
    """Lenient only: an object known by its per-process identity serial."""
    return b"?%d;" % serial


_DTYPE_TOKENS: dict[np.dtype[Any], bytes] = {}


def encode_dtype(dtype: np.dtype[Any]) -> bytes:
    token = _DTYPE_TOKENS.get(dtype)
    if token is None:
        token = encode_name(b"d", _dtype_text(dtype))
        # Only plain dtypes are cached: for them ``==`` (the dict's notion of a key) agrees with
        # the text. Records compare equal across differences the text keeps apart (the
        # aligned flag), so caching them would make a token depend on which came first.
        if dtype.names is None and dtype.subdtype is None and len(_DTYPE_TOKENS) < 4096:
            _DTYPE_TOKENS[dtype] = token
    return token


def _dtype_text(dtype: np.dtype[Any]) -> str:
    # dtype.str alone loses structure ("|V16" for any 16-byte record), so records and
    # sub-arrays are spelled out. Byte order is explicit in dtype.str ("<f8").
    if dtype.subdtype is not None:
        base, shape = dtype.subdtype
        return f"({_dtype_text(base)}){shape}"
    if dtype.names is not None:
        fields = dtype.fields
        assert fields is not None
        members = ",".join(
            f"{name!r}:{_dtype_text(fields[name][0])}@{fields[name][1]}" for name in dtype.names
        )
        # Offsets and itemsize fix the layout; the aligned flag adds nothing beyond them.
        return f"{{{members}}}{dtype.itemsize}"
    return dtype.str


def encode_numpy_scalar(value: np.generic) -> bytes:
    data = value.tobytes()
    return b"g" + encode_dtype(value.dtype) + b"%d:" % len(data) + data


def encode_shape(shape: tuple[int, ...]) -> bytes:
    return b"(" + b",".join(b"%d" % n for n in shape) + b");"


def encode_array_content(array: np.ndarray[Any, Any]) -> bytes:
    """Tag, dtype, shape and a digest of the raw data of a non-object array."""
    contiguous = np.ascontiguousarray(array)
    try:
        # A uint8 view hashes the buffer without a copy; it fails for zero-sized itemsizes.
        data_digest = xxhash.xxh3_128_digest(contiguous.reshape(-1).view(np.uint8).data)
    except (TypeError, ValueError):
        data_digest = xxhash.xxh3_128_digest(contiguous.tobytes())
    return b"A" + encode_dtype(array.dtype) + encode_shape(array.shape) + data_digest
