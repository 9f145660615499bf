"""The seal key: an Ed25519 key pair kept outside the database.

Whoever can write the database can rewrite the log and recompute every hash; what
they cannot do without this key is sign the new head. So the key lives in a file of
its own (``--key``, env ``KARTLUDO_KEY``, else ``$XDG_CONFIG_HOME/kartludo/seal.key``,
``~/.config`` when unset), readable by its owner only, and the public half (64 hex
digits) is what a TD publishes so that anyone can check seals and signed exports.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from kartludo.store.errors import StoreError

KEY_ENV = "KARTLUDO_KEY"


class KeyProblem(StoreError):
    """A seal key that is missing, unreadable or not an Ed25519 key."""


def default_key_path() -> Path:
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "kartludo" / "seal.key"


def key_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    """Where the key is: ``explicit``, else ``$KARTLUDO_KEY``, else the default path."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get(KEY_ENV)
    return Path(env).expanduser() if env else default_key_path()


class SealKey:
    """The private key, and its public half as 64 hex digits."""

    def __init__(self, private: Ed25519PrivateKey, path: Path | None = None) -> None:
        self._private = private
        self.path = path
        raw = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.public = raw.hex()

    def sign(self, message: bytes) -> bytes:
        return self._private.sign(message)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public)


def fingerprint(public: str) -> str:
    """A short name for a public key (16 hex digits of its SHA-256), for messages."""
    return hashlib.sha256(public.encode()).hexdigest()[:16]


def new_key(path: Path, *, force: bool = False) -> SealKey:
    """Write a fresh key to ``path`` (mode 0600, folder created); refuses to replace
    an existing one unless ``force``: seals made with it would no longer check."""
    if path.exists() and not force:
        raise KeyProblem(f"{path} already holds a key: replacing it orphans every seal it signed (use --force)")
    private = Ed25519PrivateKey.generate()
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
    os.replace(tmp, path)
    return SealKey(private, path)


def load_key(path: Path) -> SealKey:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise KeyProblem(f"no seal key at {path}: create one with `kartludo key new`") from None
    except OSError as exc:
        raise KeyProblem(f"cannot read the seal key {path}: {exc.strerror}") from None
    try:
        private = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise KeyProblem(f"{path} is not a PEM private key: {exc}") from None
    if not isinstance(private, Ed25519PrivateKey):
        raise KeyProblem(f"{path} holds a {type(private).__name__}, not an Ed25519 key")
    return SealKey(private, path)


def load_optional(path: Path) -> SealKey | None:
    """The key at ``path``, or None when there is no file there."""
    return load_key(path) if path.exists() else None


def parse_public(text: str) -> str:
    """A public key as 64 lowercase hex digits; raises ``KeyProblem`` otherwise."""
    value = text.strip().lower().removeprefix("ed25519:")
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        raw = b""
    if len(raw) != 32:
        raise KeyProblem(f"not an Ed25519 public key (64 hex digits): {text.strip()!r}")
    return value


def signature_ok(public: str, signature: bytes, message: bytes) -> bool:
    """Whether ``signature`` is ``public``'s signature of ``message``."""
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(public)).verify(bytes(signature), message)
    except (InvalidSignature, ValueError):
        return False
    return True
