"""Stand-in for the harness's App contract (branch `apps` owns this file; replaced on merge)."""

from __future__ import annotations

import abc
from pathlib import Path


class App(abc.ABC):
    name: str
    version: str
    users: dict[str, str]

    @abc.abstractmethod
    def install(self, cache: Path) -> None: ...

    @abc.abstractmethod
    def seed(self, pristine: Path) -> None: ...

    @abc.abstractmethod
    def start(self, state: Path, port: int) -> None: ...

    @abc.abstractmethod
    def stop(self) -> None: ...

    @abc.abstractmethod
    def db_path(self, state: Path) -> Path: ...
