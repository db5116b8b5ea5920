"""The MCP server, driven by the official SDK's own client: over stdio (`python -m evaluator mcp`) and over
streamable HTTP on the web app (/mcp). It lists its tools and simulates a gallery example with the same
result as the REST API (POST /api/v1/evaluate)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import httpx
import pytest
import yaml
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from evaluator.cel.versions import NEWEST
from tests.playground.playground_fixtures import costly_policies


ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = yaml.safe_load((ROOT / "playground" / "examples" / "seed-vap-basic-deny.yaml").read_text())
TOOLS = {"simulate", "evaluate_cel", "typecheck", "run_tests", "impact"}
DOCUMENTS = [d["text"] for d in EXAMPLE["documents"]]
REQUEST = EXAMPLE["requests"][0]["text"]


async def exercise(session: ClientSession) -> dict:
    await session.initialize()
    listed = await session.list_tools()
    assert {tool.name for tool in listed.tools} == TOOLS
    simulated = await session.call_tool("simulate", {"documents": DOCUMENTS, "request": REQUEST})
    assert not simulated.isError, simulated.content
    cel = await session.call_tool(
        "evaluate_cel", {"expression": "object.spec.replicas * 2", "variables": {"object": {"spec": {"replicas": 3}}}}
    )
    assert cel.structuredContent == {
        "result": 6,
        "type": "int",
        "cost": cel.structuredContent["cost"],
        "kubernetesVersion": NEWEST,
    }
    broken = await session.call_tool("evaluate_cel", {"expression": "1 +"})
    assert broken.structuredContent["error"]["code"] == "compile_error"
    tests = await session.call_tool(
        "run_tests", {"project": (ROOT / "playground" / "examples" / "seed-vap-basic-deny.yaml").read_text()}
    )
    assert tests.structuredContent["summary"]["passed"] == tests.structuredContent["summary"]["tests"] == 1
    checked = await session.call_tool("typecheck", {"documents": DOCUMENTS})
    assert "demo-policy.example.com" in checked.structuredContent["typeChecks"]
    return simulated.structuredContent


def rest_result(client) -> dict:
    response = client.post(
        "/api/v1/evaluate",
        {"documents": EXAMPLE["documents"], "requests": [{"name": "r", "text": REQUEST}]},
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    return response.json()["requests"][0]["result"]


def comparable(result: dict) -> dict:
    """The decision and everything in it except values that differ on every call (uid, timestamps)."""
    out = dict(result)
    for key in ("auditEvent", "admissionReview"):
        out.pop(key, None)
    return out


@pytest.mark.django_db
def test_stdio_server_lists_tools_and_simulates_like_the_rest_api(client):
    async def over_stdio() -> dict:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "evaluator", "mcp"],
            cwd=str(ROOT),
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                return await exercise(session)

    result = asyncio.run(asyncio.wait_for(over_stdio(), 120))
    assert result["allowed"] is False
    assert "failed expression: object.spec.replicas <= 5" in result["status"]["message"]
    assert comparable(result) == comparable(rest_result(client))


@pytest.mark.django_db
def test_http_mount_on_the_web_app(client):
    from playground.asgi import application

    async def over_http() -> dict:
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
            async with streamable_http_client("http://localhost/mcp", http_client=http) as (read, write, _):
                async with ClientSession(read, write) as session:
                    return await exercise(session)

    result = asyncio.run(asyncio.wait_for(over_http(), 120))
    assert comparable(result) == comparable(rest_result(client))


def test_http_mount_refuses_foreign_hosts():
    from playground.asgi import application

    async def post() -> httpx.Response:
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://evil.example") as http:
            return await http.post(
                "/mcp",
                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                headers={"Accept": "application/json, text/event-stream"},
            )

    assert asyncio.run(post()).status_code in (400, 421)


# -- the same rules as the REST API: versions, sizes, rate, and the supervised workers' bounds ----------------


def test_tools_take_and_report_the_kubernetes_version():
    from evaluator import mcp_server

    result = mcp_server.simulate(DOCUMENTS, REQUEST, kubernetes_version="1.30")
    assert result["kubernetesVersion"] == "1.30" and result["allowed"] is False
    assert mcp_server.simulate(DOCUMENTS, REQUEST)["kubernetesVersion"] == NEWEST
    assert mcp_server.typecheck(DOCUMENTS, kubernetes_version="v1.31.2")["kubernetesVersion"] == "1.31"
    project = (ROOT / "playground" / "examples" / "seed-vap-basic-deny.yaml").read_text()
    tests = mcp_server.run_tests(project, kubernetes_version="1.32")
    assert tests["kubernetesVersion"] == "1.32" and tests["summary"]["passed"] == 1
    # a CEL function newer than the release is unknown to it, as to that API server
    assert mcp_server.evaluate_cel("[1, 2].reverse()", kubernetes_version="1.29")["error"]["code"] == "compile_error"
    assert mcp_server.evaluate_cel("[1, 2].reverse()")["result"] == [2, 1]
    for refused in (
        mcp_server.simulate(DOCUMENTS, REQUEST, kubernetes_version="2.0")["errors"],
        mcp_server.typecheck(DOCUMENTS, kubernetes_version="1.2")["errors"],
        mcp_server.run_tests(project, kubernetes_version="latest")["errors"],
        [mcp_server.evaluate_cel("1", kubernetes_version="x")["error"]],
    ):
        assert refused[0]["message"].startswith("unsupported Kubernetes version")


def post_mcp(body, headers=None) -> httpx.Response:
    from playground.asgi import application

    async def post() -> httpx.Response:
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
            return await http.post(
                "/mcp",
                content=body if isinstance(body, bytes) else None,
                json=None if isinstance(body, bytes) else body,
                headers={"Accept": "application/json, text/event-stream", **(headers or {})},
            )

    return asyncio.run(asyncio.wait_for(post(), 120))


def tool_call(name: str, arguments: dict, request_id: int = 1) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


@pytest.fixture
def fresh_rate_counters():
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.mark.django_db
def test_over_rate_tool_calls_get_a_json_rpc_error_and_429_sharing_the_rest_counter(
    settings, client, fresh_rate_counters
):
    settings.PLAYGROUND_EVALUATION_RATE = "3/min"
    assert client.post("/api/v1/cel", {"expression": "1"}, content_type="application/json").status_code == 200
    for i in (1, 2):
        answer = post_mcp(tool_call("evaluate_cel", {"expression": f"{i} + 1"}, i))
        assert answer.status_code == 200 and answer.json()["result"]["structuredContent"]["result"] == i + 1
    # listing tools is not an evaluation: never counted, never refused
    assert post_mcp({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}).status_code == 200
    refused = post_mcp(tool_call("evaluate_cel", {"expression": "3"}, 7))
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
    error = refused.json()
    assert error["jsonrpc"] == "2.0" and error["id"] == 7
    assert error["error"]["code"] == -32000 and error["error"]["data"]["code"] == "throttled"
    assert error["error"]["message"].startswith("Request was throttled. Expected available in ")
    # and the REST API sees the same counter
    assert client.post("/api/v1/cel", {"expression": "1"}, content_type="application/json").status_code == 429


@pytest.mark.django_db
def test_mcp_inputs_are_held_to_the_rest_size_limits(settings, fresh_rate_counters):
    settings.PLAYGROUND_MAX_DOCUMENT_BYTES = 2000
    settings.PLAYGROUND_MAX_ITEMS = 3
    big = post_mcp(tool_call("simulate", {"documents": ["#" * 2001], "request": REQUEST}))
    assert big.status_code == 200 and big.json()["result"]["isError"] is True
    assert "too_large: a text is 2001 bytes; the limit is 2000 bytes a document" in big.text
    many = post_mcp(tool_call("typecheck", {"documents": ["a: 1"] * 4}))
    assert many.json()["result"]["isError"] is True and "documents: 4 items; the limit is 3" in many.text
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    huge = post_mcp(tool_call("evaluate_cel", {"expression": "'" + "x" * 20_000 + "'"}))
    assert huge.status_code == 413
    assert huge.json()["error"]["data"]["code"] == "too_large" and huge.json()["jsonrpc"] == "2.0"


@pytest.mark.django_db
def test_a_runaway_simulation_over_mcp_gets_the_pools_bounded_error_and_the_worker_is_replaced(
    settings, fresh_rate_counters
):
    from playground.evaluation import pool

    settings.PLAYGROUND_EVALUATION_PROCESSES = 1
    settings.PLAYGROUND_EVALUATION_TIMEOUT_SECONDS = 1
    try:
        assert pool.wait_until_started()
        first = pool.health()["workers"][0]["pid"]
        request = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\n"
        # ~4 s of work (a fast machine does 2 policies' in 1.2 s): far past the 1 s bound on any machine
        bounded = post_mcp(tool_call("simulate", {"documents": costly_policies(6), "request": request}))
        assert bounded.status_code == 200
        result = bounded.json()["result"]
        assert result["isError"] is True
        assert "evaluation_limit: evaluation exceeded 1 s / 512 MiB" in result["content"][0]["text"]
        assert pool.wait_until_started() and pool.health()["workers"][0]["pid"] != first  # killed and replaced
        after = post_mcp(tool_call("simulate", {"documents": DOCUMENTS, "request": REQUEST}))
        assert after.json()["result"]["structuredContent"]["allowed"] is False
    finally:
        pool.shutdown()
