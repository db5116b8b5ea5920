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

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = yaml.safe_load((ROOT / "playground" / "examples" / "seed-vap-basic-deny.yaml").read_text())
TOOLS = {"simulate", "evaluate_cel", "typecheck", "run_tests"}
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
    assert cel.structuredContent == {"result": 6, "type": "int", "cost": cel.structuredContent["cost"]}
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
