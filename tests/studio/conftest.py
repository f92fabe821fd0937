from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient
from studio.kinds import kind_tools

from accounts.models import User
from tests.conftest import client_for
from tests.support.factories import UserFactory


@pytest.fixture
def admin_user(db: Any) -> User:
    return UserFactory(is_org_admin=True)


@pytest.fixture
def admin_api(admin_user: User) -> APIClient:
    return client_for(admin_user)


@pytest.fixture
def colleague_api(admin_user: User) -> APIClient:
    """A partner of the same organisation who is not its admin."""
    return client_for(UserFactory(organization=admin_user.organization))


def served(kind: str) -> str:
    """A tool the catalogue says this kind of provider runs."""
    tools = kind_tools(kind)
    assert tools, f"the catalogue names no tool that {kind} runs"
    return tools[0]


def not_served(kind: str) -> str:
    from tools.registry import TOOLS

    return next(slug for slug in TOOLS if slug not in kind_tools(kind))
