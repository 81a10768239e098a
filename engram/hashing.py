"""sha256 without `import hashlib`.

hashlib loads OpenSSL (~2 ms here); the builtin `_sha2`/`_sha256` module computes the
same digest in ~0.2 ms of import, which matters on a hook that runs on every tool call.
"""

from __future__ import annotations

import sys

# The module by version: a failed import searches every sys.path entry (~50 µs of every hook).
try:
    if sys.version_info >= (3, 12):
        from _sha2 import sha256 as _sha256
    else:
        from _sha256 import sha256 as _sha256
except ImportError:  # pragma: no cover - builds without the builtin module
    from hashlib import sha256 as _sha256


def sha256_hex(data: bytes | str) -> str:
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    return _sha256(data).hexdigest()
