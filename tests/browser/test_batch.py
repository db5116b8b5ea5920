"""The batch page in a real browser: from the project's Batch link, upload a 1,000-object dump, watch the
progress bar move to the end (streamed over the job's socket; polled where the socket is refused), see the
charts drawn (canvases with pixels), search the affected objects, drill into a denied one, and download the
CSV export. Screenshots at 1440 and 390 px, light and dark."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import project_body
from tests.browser.site_pages import batch_dump
from tests.playground.playground_fixtures import binding, policy

pytestmark = pytest.mark.browser
expect.set_options(timeout=30_000)

OBJECTS = 1000
DENIED = len(range(0, OBJECTS, 4))  # every 4th Deployment has 7 replicas; the limit is 5

RECORD_PROGRESS = """() => {
    window.__progress = [];
    const bar = document.getElementById('batch-progress');
    window.__recorder = setInterval(() => window.__progress.push([bar.value, bar.max, bar.dataset.source]), 25);
}"""

# The last sample is taken as the recording stops: "done" may come sooner than the next 25 ms tick.
STOP_RECORDING = """() => {
    clearInterval(window.__recorder);
    const bar = document.getElementById('batch-progress');
    window.__progress.push([bar.value, bar.max, bar.dataset.source]);
    return window.__progress;
}"""

INKED_PIXELS = """(id) => {
    const canvas = document.getElementById(id);
    const { width, height } = canvas;
    if (!width || !height) return 0;
    const pixels = canvas.getContext('2d').getImageData(0, 0, width, height).data;
    let inked = 0;
    for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) inked += 1;
    return inked;
}"""


def test_upload_progress_charts_and_drill_down(page, api, open_project, screenshot, tmp_path):
    status, created = api("POST", "/api/v1/projects", project_body(title="Cluster check"))
    assert status == 201, created
    open_project(created)
    page.click("#btn-batch")
    expect(page).to_have_url(f"{page.url.split('/p/')[0]}/p/{created['id']}/batch")
    expect(page.locator("input[name=policies][value=max-replicas]")).to_be_checked()

    dump = tmp_path / "cluster.json"
    dump.write_text(batch_dump(OBJECTS))
    page.set_input_files("#batch-files", str(dump))
    page.evaluate(RECORD_PROGRESS)
    page.click("#btn-run")
    expect(page.locator("#progress-text")).to_have_attribute("data-status", "done", timeout=60_000)
    seen = page.evaluate(STOP_RECORDING)
    values = [value for value, maximum, _ in seen if maximum == OBJECTS]
    assert values[-1] == OBJECTS
    assert any(0 < value < OBJECTS for value in values), (
        f"the bar never showed a step between 0 and the end: {sorted(set(values))}"
    )
    assert values == sorted(values)  # it only moves forward
    # Every step came over the socket: the page never fell back to polling.
    assert {source for value, _, source in seen if value} == {"socket"}, seen
    expect(page.locator("#progress-text")).to_contain_text(f"{OBJECTS:,} / {OBJECTS:,} objects · {DENIED} denied")

    expect(page.locator("[data-testid=total-denied] strong")).to_have_text(f"{DENIED:,}")
    expect(page.locator("[data-testid=total-objects] strong")).to_have_text(f"{OBJECTS:,}")
    for chart in ("chart-policy", "chart-namespace", "chart-outcome"):
        expect(page.locator(f"#{chart}")).to_be_visible()
        assert page.evaluate(INKED_PIXELS, chart) > 500, f"{chart} is blank"
    policy_row = page.locator("#policy-table tbody tr", has_text="max-replicas")
    expect(policy_row.locator("td").nth(1)).to_have_text(f"{DENIED:,}")  # the denied column
    expect(page.locator("#policy-table thead th")).to_have_text(  # headed as the totals and the other tables
        ["Policy", "admitted", "denied", "warned", "audited", "errors"]
    )
    expect(page.locator("#affected-count")).to_contain_text(f"{DENIED} affected objects")
    screenshot("batch-1440")

    page.fill("#affected-search", "web-996")
    expect(page.locator("#affected-table tbody tr")).to_have_count(1)
    row = page.locator("#affected-table tbody tr").first
    expect(row).to_contain_text("Deployment default/web-996")
    row.get_by_role("button", name="Details of Deployment default/web-996").click()
    card = page.locator("#drilldown .result-card")
    expect(card.locator("[data-testid=decision]")).to_have_text("Denied")
    expect(card).to_contain_text("replicas must be at most 5")
    expect(page.locator("#drilldown-title")).to_have_text("Deployment default/web-996")

    with page.expect_download() as download:
        page.click("[data-export=csv]")
    lines = download.value.path().read_text().splitlines()
    assert lines[0].startswith("index,apiVersion,kind,namespace,name,allowed")
    assert len(lines) == OBJECTS + 1
    assert sum(",denied," in line for line in lines) == DENIED

    page.reload()  # the job is remembered: its results come back
    expect(page.locator("[data-testid=total-denied] strong")).to_have_text(f"{DENIED:,}")
    page.evaluate("() => localStorage.setItem('admission-playground:theme', 'dark')")
    page.reload()
    expect(page.locator("#affected-table tbody tr").first).to_be_visible()
    screenshot("batch-1440-dark", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.evaluate("() => localStorage.setItem('admission-playground:theme', 'light')")
    page.reload()
    expect(page.locator("#affected-table tbody tr").first).to_be_visible()
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    screenshot("batch-390", full_page=True)


def test_cancel_and_bad_input(page, api, server_url):
    status, created = api("POST", "/api/v1/projects", project_body(title="Cancel check"))
    page.goto(f"{server_url}/p/{created['id']}/batch")
    page.fill("#batch-text", "apiVersion: v1\nkind: Pod\nmetadata: [broken\n")
    page.click("#btn-run")
    expect(page.locator("#form-error")).to_contain_text("pasted text")
    expect(page.locator("#form-error")).to_contain_text("line")
    page.fill("#batch-text", batch_dump(3000))
    page.click("#btn-run")
    expect(page.locator("#btn-cancel")).to_be_visible()
    page.click("#btn-cancel")
    expect(page.locator("#progress-text")).to_have_attribute("data-status", "cancelled")
    expect(page.locator("#btn-cancel")).to_be_hidden()
    expect(page.locator("#results-box")).to_be_hidden()


def test_without_a_socket_the_page_polls(page, api, server_url):
    """Behind a proxy that refuses WebSockets the page polls the job instead, to the same end."""
    page.route_web_socket("**/ws/batch/**", lambda socket: socket.close())
    status, created = api("POST", "/api/v1/projects", project_body(title="No socket"))
    page.goto(f"{server_url}/p/{created['id']}/batch")
    page.fill("#batch-text", batch_dump(200))
    page.click("#btn-run")
    expect(page.locator("#progress-text")).to_have_attribute("data-status", "done", timeout=60_000)
    expect(page.locator("#batch-progress")).to_have_attribute("data-source", "poll")
    expect(page.locator("[data-testid=total-objects] strong")).to_have_text("200")


def test_a_dropped_socket_is_tried_again(page, api, server_url):
    """The first socket drops (a proxy's idle cut, a server restart): the page polls meanwhile, then follows
    the job over a new socket to its end."""
    tries = []

    def first_drops(socket):
        tries.append(socket.url)
        if len(tries) == 1:
            socket.close()
        else:
            socket.connect_to_server()

    page.route_web_socket("**/ws/batch/**", first_drops)
    body = project_body(title="Dropped socket")
    # A second policy that walks 20,000 numbers for each object: the job runs for seconds on any machine, past the
    # page's first retry a second after the drop (the plain job can end before it, leaving nothing to follow).
    slow = policy("slow-walk").replace("object.spec.replicas <= 5", "lists.range(20000).all(x, x >= 0)")
    body["documents"] += [
        {"name": "slow.yaml", "text": slow},
        {"name": "slow-binding.yaml", "text": binding("slow-walk")},
    ]
    status, created = api("POST", "/api/v1/projects", body)
    page.goto(f"{server_url}/p/{created['id']}/batch")
    page.fill("#batch-text", batch_dump(OBJECTS))
    page.evaluate(RECORD_PROGRESS)
    page.click("#btn-run")
    expect(page.locator("#progress-text")).to_have_attribute("data-status", "done", timeout=60_000)
    seen = page.evaluate(STOP_RECORDING)
    sources = [source for _, _, source in seen if source]
    assert "poll" in sources and sources[-1] == "socket", sorted(set(sources))
    assert len(tries) == 2
    expect(page.locator("[data-testid=total-objects] strong")).to_have_text(f"{OBJECTS:,}")


def test_on_a_phone_the_progress_comes_into_view(page, api, server_url):
    """At 390 px the progress bar is below the form: running a job scrolls it into view."""
    page.set_viewport_size({"width": 390, "height": 844})
    status, created = api("POST", "/api/v1/projects", project_body(title="Phone run"))
    page.goto(f"{server_url}/p/{created['id']}/batch")
    page.fill("#batch-text", batch_dump(400))
    page.click("#btn-run")
    expect(page.locator("#batch-progress")).to_be_in_viewport()
    expect(page.locator("#progress-text")).to_have_attribute("data-status", "done", timeout=60_000)


TWO_RULES = """\
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: deployment-hygiene}
spec:
  validationFailureAction: Audit
  rules:
  - name: team-label
    match: {any: [{resources: {kinds: [Deployment]}}]}
    validate:
      message: a team label is required
      pattern: {metadata: {labels: {team: "?*"}}}
  - name: few-replicas
    match: {any: [{resources: {kinds: [Deployment]}}]}
    validate:
      message: at most 5 replicas
      pattern: {spec: {replicas: "<=5"}}
"""


def test_a_broken_policy_is_flagged_and_a_multi_rule_policy_counts_each_object_once(page, api, server_url):
    body = project_body(title="Broken and two rules")
    broken = body["documents"][0]["text"].replace("max-replicas", "broken-limit").replace("<= 5", "<= ")
    body["documents"].append({"name": "broken.yaml", "text": broken})
    body["documents"].append({"name": "kyverno.yaml", "text": TWO_RULES})
    status, created = api("POST", "/api/v1/projects", body)
    assert status == 201, created
    page.goto(f"{server_url}/p/{created['id']}/batch")
    expect(page.locator("input[name=policies][value=broken-limit]")).to_be_disabled()
    expect(page.locator("input[name=policies][value=broken-limit]")).not_to_be_checked()
    expect(page.locator("[data-testid=policy-error]")).to_contain_text("broken-limit does not load, so it cannot run")
    expect(page.locator("[data-testid=policy-error]")).to_contain_text("compilation failed")
    page.fill("#batch-text", batch_dump(40))
    page.click("#btn-run")
    expect(page.locator("#progress-text")).to_have_attribute("data-status", "done", timeout=60_000)
    kyverno = page.locator("#policy-table tbody tr", has_text="ClusterPolicy/deployment-hygiene")
    expect(kyverno.locator("td")).to_have_count(5)  # the results are drawn after "done"
    cells = [int(text.replace(",", "")) for text in kyverno.locator("td").all_inner_texts()]
    assert sum(cells) == 40  # each object once, at its worst rule's outcome
    expect(page.locator("#policy-table tbody tr.batch-part")).to_have_count(2)
    expect(page.locator("#policy-table tbody tr.batch-part").first).to_contain_text("rule few-replicas")
