"""The DeletingPolicy gallery examples: through the playground's evaluation service, each request's result
carries the dry run of the policy's next run, deleting exactly what the example's description promises."""

from playground.evaluation import service as evaluation_service
from playground.services import example_service


def deletions(slug: str) -> dict[str, dict]:
    example = example_service.get_example(slug=slug)
    documents = [{"id": i, **doc} for i, doc in enumerate(example["documents"])]
    requests = [{"id": i, **req} for i, req in enumerate(example["requests"])]
    [entry] = evaluation_service.evaluate(documents, requests)["requests"]
    return {d["policy"]: d for d in entry["result"]["deletions"]}


def test_nightly_cleanup_deletes_only_labelled_pods_of_test_namespaces():
    entry = deletions("kyverno-dpol-cleanup-test-pods")["cleanup-test-pods"]
    assert entry["schedule"] == "0 1 * * *" and entry["nextRun"].endswith("T01:00:00Z")
    assert [(o["name"], o["result"]) for o in entry["objects"]] == [
        ("smoke-test", "delete"),
        ("qa-dashboard", "keep"),
        ("load-test", "keep"),
    ]


def test_configmaps_of_a_gone_app_are_deleted_unless_an_exception_keeps_them():
    entry = deletions("kyverno-dpol-orphaned-configmaps")["orphaned-app-configmaps"]
    assert entry["nextRun"].endswith(":00:00Z")
    assert {o["name"]: (o["result"], o["reason"]) for o in entry["objects"]} == {
        "cart-settings": ("keep", "condition 'no-deployment-of-its-app' is false"),
        "wishlist-settings": ("delete", "every condition is true: no-deployment-of-its-app"),
        "legacy-settings": ("keep", "spared by policy exception: shop/keep-legacy-settings"),
    }
