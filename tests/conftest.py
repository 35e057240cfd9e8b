# SPDX-License-Identifier: Apache-2.0
"""Shared pytest fixtures and options for phalanx's tests."""

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


def shared_model(*parts):
    """Path of a third-party model in ../shared/models (read in place, never copied)."""
    return os.path.join(SHARED_MODELS, *parts)
