"""Contract test: schemathesis generates requests from the served OpenAPI spec (valid and
invalid ones) for every operation; no input may produce a 5xx, and every response must
match the documented status codes, content types and schemas, and invalid input must be
refused. Bounded (a few examples per operation) so it stays around a minute. The token is
a read-only principal's: uploads are refused (403, documented), nothing is written."""
from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    negative_data_rejection,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from tests.api_support import api_env  # noqa: F401  (fixture)

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance, negative_data_rejection]
_TOKEN: dict[str, str] = {}


@schemathesis.auth()
class PrincipalToken:
    """The read-only principal's bearer token on every generated request."""

    def get(self, case, ctx):
        return _TOKEN["value"]

    def set(self, case, data, ctx):
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


@pytest.fixture(scope="module")
def api_schema(api_env):
    _TOKEN["value"] = api_env.tokens["ops-reader"]
    return schemathesis.openapi.from_asgi("/openapi.json", api_env.app)


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=6, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
def test_no_server_error_on_generated_input(case):
    case.call_and_validate(checks=CHECKS)
