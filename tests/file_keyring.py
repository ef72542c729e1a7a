"""A keyring backend for tests: passwords in a JSON file named by $TEST_KEYRING_FILE.

Select it with ``PYTHON_KEYRING_BACKEND=tests.file_keyring.FileKeyring`` (the
repository root on the path), or ``keyring.set_keyring(FileKeyring())``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError

ENV = "TEST_KEYRING_FILE"


class FileKeyring(KeyringBackend):
    priority = 1

    def _path(self) -> Path:
        return Path(os.environ[ENV])

    def _load(self) -> dict[str, str]:
        path = self._path()
        return json.loads(path.read_text()) if path.exists() and path.read_text() else {}

    def _save(self, data: dict[str, str]) -> None:
        self._path().write_text(json.dumps(data))

    def get_password(self, service: str, username: str) -> str | None:
        return self._load().get(f"{service}/{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        data = self._load()
        data[f"{service}/{username}"] = password
        self._save(data)

    def delete_password(self, service: str, username: str) -> None:
        data = self._load()
        if data.pop(f"{service}/{username}", None) is None:
            raise PasswordDeleteError("not stored")
        self._save(data)
