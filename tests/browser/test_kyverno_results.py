"""Kyverno mutate and generate results on the page: a gallery example's mutate rules show their JSON patches, the
diff and the patched object; a generate example shows each object it would create or update, as YAML, with the
rule that made it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import card

pytestmark = pytest.mark.browser
expect.set_options(timeout=20_000)
SHOTS = os.environ.get("SCREENSHOTS_DIR")
WIDTHS = {"1440": (1440, 900), "390": (390, 844)}


def shoot(page, section, name: str) -> None:
    """Leave PNGs for a reviewer when SCREENSHOTS_DIR is set (`make screenshots`): the window scrolled to the
    section, and the section whole."""
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        section.scroll_into_view_if_needed()
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"))
        section.screenshot(path=str(Path(SHOTS) / f"{name}-section.png"))


def open_example(browser, server_url, slug: str, width: str):
    viewport = dict(zip(("width", "height"), WIDTHS[width]))
    context = browser.new_context(viewport=viewport)
    context.set_default_timeout(20_000)
    context.add_init_script("localStorage.setItem('admission-playground:tour-done', '1');")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server_url}/examples/{slug}")
    expect(card(page).locator("[data-testid=decision]")).to_have_text("Allowed")
    return context, page, errors


@pytest.mark.parametrize("width", list(WIDTHS))
def test_a_mutate_example_shows_each_rules_patch_the_diff_and_the_patched_object(browser, server_url, width):
    context, page, errors = open_example(browser, server_url, "kyverno-mutate-replace-image-registry", width)
    try:
        first = card(page)
        section = first.locator("[data-testid=kyverno-mutations]")
        expect(section).to_be_visible()
        rules = section.locator("[data-testid=kyverno-rule]")
        expect(rules).to_have_count(2)
        containers, init = rules.nth(0), rules.nth(1)
        expect(containers.locator("summary").first).to_contain_text(
            "replace-image-registry / replace-image-registry-pod-containers"
        )
        expect(containers.locator("summary").first).to_contain_text("pass")
        patch = containers.locator("[data-testid=kyverno-rule-patch] pre")
        expect(patch).to_be_visible()
        expect(patch).to_contain_text('"path": "/spec/containers/0/image"')
        expect(patch).to_contain_text('"value": "myregistry.corp.com/library/nginx:1.27"')
        expect(init.locator("[data-testid=kyverno-rule-patch] pre")).to_contain_text("/spec/initContainers/0/image")
        # the whole chain's diff: the old image struck out, the new one added
        chain = section.locator("pre.diff").first
        expect(chain).to_be_visible()
        expect(chain.locator(".diff-del", has_text="image: docker.io/library/nginx:1.27")).to_have_count(1)
        expect(chain.locator(".diff-add", has_text="image: myregistry.corp.com/library/nginx:1.27")).to_have_count(1)
        patched = section.locator("[data-testid=kyverno-patched-object]")
        patched.locator("summary").click()
        expect(patched.locator("pre")).to_contain_text("image: myregistry.corp.com/envoyproxy/envoy:v1.30.0")
        # the second request has no init containers: that rule is skipped by its precondition, and says so
        second = card(page, 1).locator("[data-testid=kyverno-rule][data-result=skip]")
        expect(second).to_have_count(1)
        second.locator("summary").click()
        expect(second).to_contain_text("preconditions not met")
        sizes = page.evaluate("""() => [...document.querySelectorAll('.result-card pre')].filter((p) => p.offsetParent)
            .map((p) => ({pre: p.getBoundingClientRect().right, card: p.closest('.result-card').getBoundingClientRect().right}))""")
        assert sizes and all(size["pre"] <= size["card"] + 1 for size in sizes), sizes
        shoot(page, section, f"kyverno-mutate-{width}")
        assert errors == []
    finally:
        context.close()


@pytest.mark.parametrize("width", list(WIDTHS))
def test_a_generate_example_shows_each_object_as_yaml_with_its_rule(browser, server_url, width):
    context, page, errors = open_example(browser, server_url, "kyverno-generate-sync-secrets", width)
    try:
        section = card(page).locator("[data-testid=kyverno-generate]")
        expect(section).to_be_visible()
        expect(section.locator("summary").first).to_have_text("Kyverno generate (2 objects)")
        rule = section.locator("[data-testid=generate-rule]")
        expect(rule.locator("h5")).to_contain_text("sync-secrets / sync-image-pull-secret")
        created = rule.locator("[data-testid=generated-object][data-action=create]")
        expect(created).to_contain_text("Secret team-a/regcred")
        expect(created).to_contain_text("would create by rule sync-secrets / sync-image-pull-secret")
        yaml_text = created.locator("pre")
        expect(yaml_text).to_be_visible()
        expect(yaml_text).to_contain_text("namespace: team-a")
        expect(yaml_text).to_contain_text("generate.kyverno.io/source-namespace: default")
        source = rule.locator("[data-testid=generated-object][data-action=update]")
        expect(source).to_contain_text("Secret default/regcred (clone source)")
        expect(source.locator("pre")).to_contain_text("generate.kyverno.io/clone-source")
        shoot(page, section, f"kyverno-generate-{width}")
        assert errors == []
    finally:
        context.close()


@pytest.mark.parametrize("width", list(WIDTHS))
def test_a_mutating_policy_example_shows_its_mutation_patch_and_diff(browser, server_url, width):
    context, page, errors = open_example(browser, server_url, "kyverno-mpol-add-safe-to-evict", width)
    try:
        section = card(page).locator("[data-testid=kyverno-mpol]")
        expect(section).to_be_visible()
        expect(section.locator("h5").first).to_have_text("MutatingPolicy add-safe-to-evict")
        expect(section).to_contain_text("success")
        mutation = section.locator("[data-testid=mpol-mutation]")
        expect(mutation).to_have_count(1)
        expect(mutation.locator("summary").first).to_contain_text("mutation 0 · ApplyConfiguration")
        patch = mutation.locator("[data-testid=mpol-mutation-patch] pre")
        expect(patch).to_contain_text('"path": "/metadata/annotations"')
        expect(patch).to_contain_text('"cluster-autoscaler.kubernetes.io/safe-to-evict": "true"')
        diff = mutation.locator("pre.diff").first
        expect(diff.locator(".diff-add", has_text="cluster-autoscaler.kubernetes.io/safe-to-evict")).to_have_count(1)
        patched = section.locator("[data-testid=mpol-patched-object]")
        patched.locator("summary").click()
        expect(patched.locator("pre")).to_contain_text('cluster-autoscaler.kubernetes.io/safe-to-evict: "true"')
        # the second request has no local volume: the policy skips, no mutation section for it
        expect(card(page, 1).locator("[data-testid=kyverno-mpol]")).to_have_count(0)
        shoot(page, section, f"kyverno-mpol-{width}")
        assert errors == []
    finally:
        context.close()


def test_a_validating_policy_shows_its_expression_trace(browser, server_url):
    """A ValidatingPolicy's variables and validations, with value, type and cost, as a VAP's trace shows them."""
    context, page, errors = open_example(browser, server_url, "vpol-variables-replica-limit", "1440")
    try:
        section = card(page).locator("[data-testid=trace]")
        expect(section).to_be_visible()
        section.locator("summary").first.click()
        tuple_ = section.locator("details.trace-tuple", has_text="ValidatingPolicy replica-limit")
        tuple_.locator("summary").click()
        variables = tuple_.locator("table[data-section=variables]")
        expect(variables).to_contain_text("exempt")
        expect(variables).to_contain_text("object.spec.?replicas.orValue(1)")
        expect(variables.locator("tr", has_text="replicas").last).to_contain_text("int")
        validations = tuple_.locator("table[data-section=validations]")
        expect(validations).to_contain_text("variables.exempt || variables.replicas <= variables.maxReplicas")
        expect(validations).to_contain_text("bool")
        assert errors == []
    finally:
        context.close()


MAP_POLICY = """apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: add-team}
spec:
  autogen: {mutatingAdmissionPolicy: {enabled: true}}
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{labels: {'team': 'payments'}}}"
"""
MAP_REQUEST = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
"""


def test_a_mutating_policy_is_shown_beside_its_generated_mutating_admission_policy(page, api, open_project):
    body = {
        "title": "Generated MAP",
        "documents": [{"name": "mpol.yaml", "text": MAP_POLICY}],
        "requests": [{"name": "web", "text": MAP_REQUEST}],
    }
    status, created = api("POST", "/api/v1/projects", body)
    assert status == 201
    open_project(created)
    compared = card(page).locator("[data-testid=generated-map]")
    compared.locator("summary").first.click()
    row = compared.locator("tbody tr").first
    expect(row).to_contain_text("add-team")
    expect(row.locator(".badge")).to_have_count(2)  # the MutatingPolicy's outcome and the generated MAP's
    expect(row).to_contain_text("patches")
    expect(row).to_contain_text("same object")  # both add the label
    expect(row).to_contain_text('"path":"/metadata/labels"')
    expect(compared).to_contain_text("mpol-add-team-binding")
