"""Load from cluster in a real browser: a server connected to the fake API server; the dialog counts, loads
policies, namespaces and Deployments into a project, and a loaded Deployment becomes a sample request the
loaded policy denies. A server without a connection shows no such button (tests/browser/test_editor.py's)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import live_daphne
from tests.browser.helpers import api_client, card, project_body
from tests.fake_apiserver import FakeCluster, sample_cluster, serving, write_kubeconfig

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def cluster() -> FakeCluster:
    return sample_cluster()


@pytest.fixture(scope="module")
def connected_url(tmp_path_factory, cluster: FakeCluster) -> Iterator[str]:
    """A daphne like the suite's, with PLAYGROUND_CLUSTER pointing at the fake API server."""
    workdir = tmp_path_factory.mktemp("cluster-server")
    with serving(cluster) as api_server:
        settings = {
            "PLAYGROUND_CLUSTER": "kubeconfig",
            "PLAYGROUND_CLUSTER_KUBECONFIG": str(write_kubeconfig(workdir / "kubeconfig", api_server)),
        }
        with live_daphne(workdir, settings, (("migrate", "--noinput", "-v0"),)) as url:
            yield url


def test_load_policies_namespaces_and_deployments_then_see_the_decision(page, connected_url, cluster, screenshot):
    api = api_client(connected_url)
    status, created = api("POST", "/api/v1/projects", {"title": "from the cluster"})
    assert status == 201
    page.goto(connected_url + "/")
    page.evaluate(
        "([id, token]) => localStorage.setItem('admission-playground:token:' + id, token)",
        [created["id"], created["editToken"]],
    )
    page.goto(f"{connected_url}/p/{created['id']}")
    page.wait_for_selector("#conn-state[data-state=open]")
    button = page.locator("#btn-cluster")
    expect(button).to_be_visible()
    button.click()
    dialog = page.locator("#cluster-dialog")
    expect(dialog).to_be_visible()
    expect(page.locator("#cluster-name")).to_have_text("(fake)")
    page.check("#cluster-form [name=params]")
    page.fill("#cluster-form [name=kinds]", "Deployment, StatefulSet")
    page.fill("#cluster-form [name=namespace]", "team-a")
    page.click("#btn-cluster-count")
    table = page.locator(".cluster-count-table")
    expect(table.locator("tbody tr")).to_have_count(6)
    expect(table.locator("tbody tr").last).to_contain_text("Deployment")
    expect(table.locator("tbody tr").last).to_contain_text("2")
    expect(page.locator(".cluster-errors li")).to_contain_text("statefulsets.apps: forbidden")
    screenshot("cluster-dialog-counted")
    page.click("#btn-cluster-load")
    expect(page.locator(".cluster-loaded")).to_have_text("Loaded 10 new and 0 already loaded object(s).")
    expect(page.locator(".cluster-errors li[data-reason=forbidden]")).to_have_count(1)
    page.click("#cluster-form button[value=close]")
    documents = page.locator(".panel[data-target=document]")
    expect(documents).to_have_count(10)
    names = page.locator(".panel[data-target=document] .item-name")
    expect(names.nth(0)).to_have_value("ValidatingAdmissionPolicy/max-replicas")
    web = documents.nth(8)  # policies, binding, ClusterPolicy, 4 namespaces, the ConfigMap param, then web
    expect(web.locator(".item-name")).to_have_value("Deployment/team-a/web")
    expect(web.locator(".origin-label")).to_have_text("cluster")
    web.locator(".origin-request[data-operation=CREATE]").click()
    expect(page.locator(".panel[data-target=request] .item-name")).to_have_value("CREATE Deployment/web")
    expect(card(page).locator("[data-testid=decision]")).to_have_text("Denied", timeout=45_000)  # cold workers
    expect(card(page)).to_contain_text("replicas must be at most 5")
    screenshot("cluster-loaded-project")
    assert {method for method, *_ in cluster.requests} == {"GET"}
    assert not any("secrets" in path for path in cluster.paths())


def test_the_batch_page_takes_its_objects_from_the_cluster(page, connected_url, cluster):
    api = api_client(connected_url)
    status, created = api("POST", "/api/v1/projects", project_body())
    assert status == 201
    page.goto(f"{connected_url}/p/{created['id']}/batch")
    expect(page.locator("#batch-cluster")).to_be_visible()
    expect(page.locator("#batch-cluster-name")).to_have_text("(fake)")
    page.check("#batch-from-cluster")
    page.click("#btn-run")
    expect(page.locator("#progress-text")).to_have_attribute("data-status", "done", timeout=60_000)
    expect(page.locator("[data-testid=total-objects] strong")).to_have_text("3")  # the cluster's Deployments
    expect(page.locator("[data-testid=total-denied] strong")).to_have_text("1")  # web, 9 replicas
    expect(page.locator("#affected-table tbody tr")).to_have_count(1)
    expect(page.locator("#affected-table tbody tr").first).to_contain_text("Deployment team-a/web")
    assert {method for method, *_ in cluster.requests} == {"GET"}


def test_the_batch_page_shows_the_cluster_read_under_way_and_names_a_forbidden_kind(
    page, connected_url, cluster, screenshot
):
    """The read runs on a worker with progress: Deployments come one per page, each a while, and the bar's
    text says how far ("reading deployments.apps: 1 / 3"); StatefulSets are forbidden (403), which the job
    names as a warning while it runs the rest."""
    api = api_client(connected_url)
    status, created = api("POST", "/api/v1/projects", project_body())
    assert status == 201
    cluster.page_size["deployments.apps"] = 1
    cluster.slow["deployments.apps"] = 0.8
    try:
        page.goto(f"{connected_url}/p/{created['id']}/batch")
        page.check("#batch-from-cluster")
        page.fill("#batch-cluster-kinds", "Deployment, StatefulSet")
        page.click("#btn-run")
        text = page.locator("#progress-text")
        expect(text).to_have_attribute("data-status", "reading", timeout=30_000)
        expect(text).to_contain_text("reading deployments.apps: 1 / 3", timeout=30_000)
        screenshot("batch-reading-the-cluster")
        expect(text).to_have_attribute("data-status", "done", timeout=60_000)
    finally:
        cluster.page_size.pop("deployments.apps")
        cluster.slow.pop("deployments.apps")
    expect(page.locator("[data-testid=total-objects] strong")).to_have_text("3")
    expect(page.locator("#job-warnings li")).to_have_count(1)
    expect(page.locator("#job-warnings li").first).to_contain_text("cannot read statefulsets.apps: 403 Forbidden")
