"""Converters between a project and the formats users already have, without Django.

A project is plain data: {"title", "description", "documents": [{"name", "text"}],
"requests": [{"name", "text", "expected"}]} (`expected` as in evaluator/expectations.py). Each module reads
one format into a project and writes a project out in it:

- project_files: the gallery's YAML (what `admission-playground test DIR` runs)
- manifests: a multi-document YAML/JSON bundle (`kubectl get -o yaml` Lists included)
- admission_review: an AdmissionReview (or AdmissionRequest) JSON, e.g. from a webhook log
- kyverno_test: a `kyverno test` folder (kyverno-test.yaml and the files it names)
- kaptest: a pfnet/kaptest suite (kaptest.yaml, policies and test cases)
- archives: bounded reading of zip/tar uploads and writing of folders as archives
- round_trips: what a round trip through a format changed in a project, each change naming its item

The formats by name (for the API and the page) are in evaluator/format_registry.py.
"""
