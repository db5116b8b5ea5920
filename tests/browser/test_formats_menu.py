"""The Import/Export menu in a real browser: import a manifest bundle as a new project, then download it back
as a project file."""

from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout, expect

from tests.browser.helpers import project_body

pytestmark = pytest.mark.browser

PANEL_IN_VIEW = """() => {
    const box = document.querySelector('#formats-menu .menu-panel').getBoundingClientRect();
    return box.left >= 0 && box.right <= document.documentElement.clientWidth;
}"""

BUNDLE = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Namespace
  metadata: {name: team-a}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: settings, namespace: team-a}
  data: {mode: strict}
"""


def test_import_a_bundle_and_export_it(page, api, open_project, server_url, tmp_path):
    status, created = api("POST", "/api/v1/projects", project_body())
    assert status == 201
    open_project(created)
    page.click("#formats-menu summary")
    page.select_option("#import-format", "manifests")
    bundle = tmp_path / "bundle.yaml"
    bundle.write_text(BUNDLE)
    page.set_input_files("#import-file", str(bundle))
    page.wait_for_url(lambda url: "/p/" in url and created["id"] not in url)
    page.wait_for_selector("#conn-state[data-state=open]")
    expect(page.locator(".panel[data-target=request]").first).to_contain_text("kind: ConfigMap")
    page.click("#formats-menu summary")
    for width in (1440, 390):  # the panel opens inside the viewport, on a desktop and on a phone
        page.set_viewport_size({"width": width, "height": 900})
        if width < 700:  # a phone's toolbar keeps Import/Export behind "More"
            page.click("#toolbar-more")
        try:  # placed by the page's toggle handler, which runs a task after the click (CI once measured before it)
            page.wait_for_function(PANEL_IN_VIEW, timeout=5_000)
        except PlaywrightTimeout:
            pass  # the assertion below says where it is
        box = page.locator("#formats-menu .menu-panel").bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= width, (width, box)
    with page.expect_download() as download:
        page.click("#export-links a[data-export=project]")
    saved = tmp_path / "project.yaml"
    download.value.save_as(saved)
    text = saved.read_text()
    assert "CREATE ConfigMap team-a/settings" in text and "namespace: team-a" in text

    # the same menu offers the requests and their decisions as AdmissionReviews
    with page.expect_download() as download:
        page.click("#export-links a[data-export=admission-review]")
    assert download.value.suggested_filename.endswith("-admissionreview.json")
    review = download.value.path().read_text()
    assert '"kind": "AdmissionReview"' in review and '"allowed": true' in review
