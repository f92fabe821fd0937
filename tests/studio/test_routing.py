"""Routing: the organisation's account for the tool, else the deployment default, else the
local engine; read on every call."""

from __future__ import annotations

from typing import Any

import pytest
from studio.kinds import kind_tools
from studio.routing import provider_config_for
from studio.services import provider_account_create, provider_account_update

from tests.studio.conftest import not_served, served
from tests.support.factories import OrganizationFactory
from workers.providers.config import ProviderConfig

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_defaults(settings: Any) -> None:
    settings.ENGINE_PROVIDERS = {}
    settings.OUTBOUND_ALLOW = []


def test_the_organisations_account_for_the_tool(settings: Any) -> None:
    org = OrganizationFactory()
    tool = served("fashn")
    provider_account_create(org=org, kind="fashn", api_key="fa-key-1",
                            models={tool: "tryon-v1.6"}, fallback_local=True)

    config = provider_config_for(org_id=org.pk, tool_slug=tool, engine_name="virtual_try_on")

    assert config == ProviderConfig(provider="fashn", base_url="https://api.fashn.ai/v1",
                                    api_key="fa-key-1", model="tryon-v1.6", fallback_local=True)
    assert "fa-key-1" not in repr(config)


def test_an_account_naming_the_tool_wins_over_one_for_every_tool() -> None:
    org = OrganizationFactory()
    tool = served("fal")
    provider_account_create(org=org, kind="fashn", api_key="general")
    provider_account_create(org=org, kind="fal", api_key="named", tools=[tool],
                            models={tool: "fal-ai/leffa/virtual-tryon"})

    config = provider_config_for(org_id=org.pk, tool_slug=tool, engine_name="x")

    assert config is not None and config.provider == "fal" and config.api_key == "named"
    assert config.model == "fal-ai/leffa/virtual-tryon"


def test_an_account_serves_only_its_tools_and_its_kinds() -> None:
    org = OrganizationFactory()
    tools = [served("fashn")]
    provider_account_create(org=org, kind="fashn", api_key="k", tools=tools)
    other = next(t for t in kind_tools("fashn") if t not in tools)
    assert provider_config_for(org_id=org.pk, tool_slug=other, engine_name="e") is None
    # a tool no FASHN model runs never goes to a FASHN account for every tool
    provider_account_create(org=org, kind="fashn", api_key="k2")
    assert provider_config_for(org_id=org.pk, tool_slug=not_served("fashn"),
                               engine_name="e") is None


def test_the_deployment_default_then_the_local_engine(settings: Any) -> None:
    default = ProviderConfig(provider="openai", base_url="https://images.example/v1",
                             api_key="deployment")
    settings.ENGINE_PROVIDERS = {"editorial_generate": default}
    org = OrganizationFactory()

    assert provider_config_for(org_id=org.pk, tool_slug="editorial",
                               engine_name="editorial_generate") is default
    assert provider_config_for(org_id=org.pk, tool_slug="restyle", engine_name="restyle") is None
    settings.ENGINE_PROVIDERS = {"restyle": ProviderConfig(provider="local")}
    assert provider_config_for(org_id=org.pk, tool_slug="restyle", engine_name="restyle") is None


def test_another_organisations_account_is_never_used() -> None:
    tool = served("fashn")
    provider_account_create(org=OrganizationFactory(), kind="fashn", api_key="theirs")
    assert provider_config_for(org_id=OrganizationFactory().pk, tool_slug=tool,
                               engine_name="e") is None


def test_a_replaced_key_or_deleted_account_counts_from_the_next_call() -> None:
    org = OrganizationFactory()
    tool = served("fashn")
    account = provider_account_create(org=org, kind="fashn", api_key="first")
    assert provider_config_for(org_id=org.pk, tool_slug=tool, engine_name="e").api_key == "first"

    provider_account_update(account=account, api_key="second")
    assert provider_config_for(org_id=org.pk, tool_slug=tool, engine_name="e").api_key == "second"

    account.delete()
    assert provider_config_for(org_id=org.pk, tool_slug=tool, engine_name="e") is None


def test_an_unreadable_key_fails_the_job_with_a_reason(settings: Any) -> None:
    from workers.engines.base import EngineError

    org = OrganizationFactory()
    provider_account_create(org=org, kind="fashn", api_key="k")
    settings.PROVIDER_KEYS_SECRET = ["a secret the key was not encrypted with"]
    with pytest.raises(EngineError) as caught:
        provider_config_for(org_id=org.pk, tool_slug=served("fashn"), engine_name="e")
    assert caught.value.code == "provider_key_unreadable" and "Settings" in caught.value.message
