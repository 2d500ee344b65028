"""The sync's world: a fake GitHub on loopback over real demo tournament files, and the moto MetaTable."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

import pytest

from meta_mage.archetypes.classifier import get_classifier
from meta_mage.config import Settings
from meta_mage.storage.meta import MetaRepository
from meta_mage.sync.github import GitHubClient
from meta_mage.sync.run import SyncFilter, SyncReport, sync
from meta_mage.sync.upstream import GitHubUpstream
from tests.conftest import demo_members
from tests.sync.fake_github import FakeGitHub, FakeRepository, laid_out, serving


@cache
def demo_files() -> tuple[tuple[str, bytes], ...]:
    """The demo tournaments at their ``Tournaments/MTGO/YYYY/MM/DD/<name>.json`` paths, in path order."""
    return tuple(sorted(laid_out(demo_members()).items()))


def files(start: int, stop: int) -> dict[str, bytes]:
    return dict(demo_files()[start:stop])


@pytest.fixture()
def github() -> Iterator[FakeGitHub]:
    with serving(FakeGitHub(FakeRepository())) as fake:
        yield fake


@pytest.fixture()
def meta(dynamodb: Any, settings: Settings) -> MetaRepository:
    return MetaRepository(dynamodb.Table(settings.meta_table))


def client(github: FakeGitHub, **options: Any) -> GitHubClient:
    return GitHubClient(github.repository.full_name, api_url=github.api_url, raw_url=github.raw_url, **options)


def run(
    github: FakeGitHub,
    meta: MetaRepository,
    settings: Settings,
    since: dt.date | None = dt.date(2025, 11, 1),
    wanted: SyncFilter | None = None,
    time_left: Callable[[], float] | None = None,
    **options: Any,
) -> SyncReport:
    """One sync of the fake repository's main branch (``options`` go to its ``GitHubClient``)."""
    upstream = GitHubUpstream(client(github, **options), "main")
    classifier = get_classifier(settings.archetype_rules_dir)
    return sync(upstream, meta, classifier, since=since, wanted=wanted, time_left=time_left)


def scan(table: Any) -> list[dict[str, Any]]:
    """Every item of a table, in key order."""
    items: list[dict[str, Any]] = []
    kwargs: dict[str, Any] = {}
    while True:
        page = table.scan(**kwargs)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            return sorted(items, key=lambda i: (i["pk"], i["sk"]))
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def tournaments_per_format(meta: MetaRepository) -> dict[str, int]:
    return {summary.format: summary.tournaments for summary in meta.list_formats()}
