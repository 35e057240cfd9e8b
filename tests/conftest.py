# SPDX-License-Identifier: Apache-2.0
"""Shared pytest fixtures and options for phalanx's tests."""

import glob
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED_MODELS = os.path.normpath(os.path.join(ROOT, "..", "shared", "models"))


def pytest_addoption(parser):
    parser.addoption("--full", action="store_true", default=False,
                     help="run the full conformance sweep instead of the fast subset")


@pytest.fixture(scope="session")
def full(request):
    return request.config.getoption("--full")


def fast_subset(predicate):
    """Mark a parametrized test whose cases outside the fast subset run only under --full.

    predicate(**params) says whether a case (its parametrize arguments by name) is in the fast
    subset; the others are deselected, not skipped, without --full, so that a skip always means a
    gap."""
    def mark(fn):
        fn._px_fast_subset = predicate
        return fn
    return mark


def pytest_collection_modifyitems(config, items):
    if config.getoption("--full"):
        return
    keep, drop = [], []
    for item in items:
        predicate = getattr(getattr(item, "function", None), "_px_fast_subset", None)
        params = getattr(getattr(item, "callspec", None), "params", {})
        (keep if predicate is None or predicate(**params) else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def shared_model(*parts):
    """Path of a third-party model in ../shared/models (read in place, never copied)."""
    return os.path.join(SHARED_MODELS, *parts)


# where the full sweeps (--full) find the corpus
CORPUS_PATTERNS = ("gymnasium/*.xml", "mujoco/model/**/*.xml", "mujoco/test/**/*.xml")


def corpus(fast, full):
    """The models of a corpus test: the fast subset, and with --full every corpus model."""
    if not full:
        return list(fast)
    paths = set(fast)
    for pattern in CORPUS_PATTERNS:
        paths.update(glob.glob(os.path.join(SHARED_MODELS, pattern), recursive=True))
    return sorted(paths)


def parametrize_corpus(metafunc, argname, fast):
    """Parametrize argname (when the test takes it) over corpus(fast, --full), with ids relative
    to ../shared/models; for a test module's pytest_generate_tests."""
    if argname in metafunc.fixturenames:
        paths = corpus(fast, metafunc.config.getoption("--full"))
        metafunc.parametrize(argname, paths,
                             ids=[os.path.relpath(p, SHARED_MODELS) for p in paths])
