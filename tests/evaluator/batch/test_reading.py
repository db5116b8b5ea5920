"""read_objects: every accepted format, and hostile input refused with a located error (never a crash)."""

from __future__ import annotations

import gzip
import io
import json
import tarfile

import yaml

from evaluator.batch import read_objects
from evaluator.batch import reading


def deployment(name: str, namespace: str = "default") -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": namespace}}


def names(objects: list[dict]) -> list[str]:
    return [o["metadata"]["name"] for o in objects]


def tgz(members: dict[str, bytes], *, extra: list[tarfile.TarInfo] | None = None) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for info in extra or []:
            tar.addfile(info)
    return out.getvalue()


def test_multi_document_yaml_with_a_broken_document_in_the_middle():
    text = "\n---\n".join(
        [yaml.safe_dump(deployment("a")), "kind: [unclosed\n", yaml.safe_dump(deployment("b"))]
    ).encode()
    objects, errors = read_objects(text, "dump.yaml")
    assert names(objects) == ["a", "b"]
    assert len(errors) == 1
    error = errors[0]
    assert error["severity"] == "error" and error["source"] == "dump.yaml" and error["document"] == 1
    assert error["message"].startswith("invalid YAML") and error["line"] > 3


def test_kubectl_get_all_namespaces_yaml_list_is_flattened():
    dump = {
        "apiVersion": "v1",
        "kind": "List",
        "metadata": {"resourceVersion": ""},
        "items": [deployment("a"), {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "x"}}],
    }
    objects, errors = read_objects(yaml.safe_dump(dump).encode(), "all.yaml")
    assert errors == [] and [o["kind"] for o in objects] == ["Deployment", "Pod"]


def test_typed_json_list_gets_its_items_kind_back():
    dump = {"apiVersion": "apps/v1", "kind": "DeploymentList", "items": [{"metadata": {"name": "a"}}]}
    objects, errors = read_objects(json.dumps(dump), "deploys.json")
    assert errors == [] and objects == [{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "a"}}]


def test_json_array_and_a_utf8_bom():
    data = b"\xef\xbb\xbf" + json.dumps([deployment("a"), deployment("b")]).encode()
    objects, errors = read_objects(data, "array.json")
    assert errors == [] and names(objects) == ["a", "b"]


def test_broken_json_is_reported_with_its_line():
    objects, errors = read_objects(b'{"apiVersion": "v1",\n "kind": "Pod",\n "metadata": {]\n}', "bad.json")
    assert objects == [] and errors[0]["source"] == "bad.json" and errors[0]["line"] == 3


def test_an_object_without_kind_is_named():
    objects, errors = read_objects(b"apiVersion: v1\nmetadata: {name: x}\n", "x.yaml")
    assert objects == [] and errors[0]["message"] == "error validating data: [kind not set]"


def test_tar_gz_of_manifests_in_folders():
    archive = tgz(
        {
            "cluster/apps/web.yaml": yaml.safe_dump(deployment("web")).encode(),
            "cluster/apps/api.json": json.dumps(deployment("api")).encode(),
            "cluster/README.md": b"# not a manifest\n",
            "cluster/list.yml": yaml.safe_dump(
                {"apiVersion": "v1", "kind": "List", "items": [deployment("x")]}
            ).encode(),
        }
    )
    objects, errors = read_objects(archive, "dump.tgz")
    assert errors == [] and sorted(names(objects)) == ["api", "web", "x"]


def test_archive_errors_name_the_member_and_line():
    archive = tgz({"ok.yaml": yaml.safe_dump(deployment("ok")).encode(), "dir/bad.yaml": b"a: b\n  c: [\n"})
    objects, errors = read_objects(archive, "dump.tar.gz")
    assert names(objects) == ["ok"]
    assert errors[0]["source"] == "dump.tar.gz:dir/bad.yaml" and errors[0]["line"] == 2


def test_an_archive_is_recognised_by_its_magic_bytes_not_its_name():
    objects, errors = read_objects(tgz({"a.yaml": yaml.safe_dump(deployment("a")).encode()}), "upload.bin")
    assert names(objects) == ["a"] and errors == []


def test_path_tricks_links_and_devices_are_refused():
    link = tarfile.TarInfo("evil.yaml")
    link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
    device = tarfile.TarInfo("dev.yaml")
    device.type = tarfile.CHRTYPE
    archive = tgz(
        {
            "../escape.yaml": yaml.safe_dump(deployment("escape")).encode(),
            "/abs.yaml": yaml.safe_dump(deployment("abs")).encode(),
            "a/../../up.yaml": yaml.safe_dump(deployment("up")).encode(),
            "fine.yaml": yaml.safe_dump(deployment("fine")).encode(),
        },
        extra=[link, device],
    )
    objects, errors = read_objects(archive, "t.tgz")
    assert names(objects) == ["fine"]
    messages = {e["source"]: e["message"] for e in errors}
    assert messages["t.tgz:../escape.yaml"].startswith("unsafe path in archive")
    assert messages["t.tgz:/abs.yaml"].startswith("unsafe path in archive")
    assert messages["t.tgz:a/../../up.yaml"].startswith("unsafe path in archive")
    assert messages["t.tgz:evil.yaml"].startswith("not a regular file")
    assert messages["t.tgz:dev.yaml"].startswith("not a regular file")


def test_a_member_over_the_size_limit_is_not_read(monkeypatch):
    monkeypatch.setattr(reading, "MAX_MEMBER_BYTES", 1000)
    huge = (yaml.safe_dump(deployment("big")) + "#" * 5000 + "\n").encode()
    objects, errors = read_objects(tgz({"big.yaml": huge, "small.yaml": yaml.safe_dump(deployment("s")).encode()}))
    assert names(objects) == ["s"]
    assert errors[0]["source"] == "<input>:big.yaml" and "larger than 1,000 bytes" in errors[0]["message"]


def test_a_gzip_bomb_stops_at_the_total_limit(monkeypatch):
    """Members whose declared sizes add up past the limit: reading stops there (no unbounded inflation)."""
    monkeypatch.setattr(reading, "MAX_TOTAL_BYTES", 10_000)
    filler = (yaml.safe_dump(deployment("d")) + "#" * 4000 + "\n").encode()
    objects, errors = read_objects(tgz({f"m{i}.yaml": filler for i in range(10)}), "bomb.tgz")
    assert 0 < len(objects) < 10
    assert "more than 10,000 bytes" in errors[-1]["message"]


def test_too_many_members(monkeypatch):
    monkeypatch.setattr(reading, "MAX_MEMBERS", 3)
    archive = tgz({f"m{i}.yaml": yaml.safe_dump(deployment(f"d{i}")).encode() for i in range(5)})
    objects, errors = read_objects(archive, "many.tgz")
    assert names(objects) == ["d0", "d1", "d2"] and "more than 3 members" in errors[0]["message"]


def test_yaml_alias_bomb_is_refused_as_go_yaml_refuses_it():
    lines = [
        "apiVersion: v1",
        "kind: ConfigMap",
        "metadata: {name: lol}",
        'a: &a ["x","x","x","x","x","x","x","x","x"]',
    ]
    for level in "bcdefgh":
        prev = chr(ord(level) - 1)
        lines.append(f"{level}: &{level} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]")
    bomb = "\n".join(lines) + "\n---\n" + yaml.safe_dump(deployment("after"))
    objects, errors = read_objects(bomb.encode(), "bomb.yaml")
    assert names(objects) == ["after"]
    assert errors[0]["message"] == "invalid YAML: document contains excessive aliasing"


def test_not_yaml_at_all():
    objects, errors = read_objects(bytes(range(256)) * 4, "image.png")
    assert objects == [] and "not UTF-8 text" in errors[0]["message"] and errors[0]["source"] == "image.png"
    objects, errors = read_objects("just a sentence", "notes.txt")
    assert objects == [] and errors[0]["message"] == "document is not an object (got str)"
    objects, errors = read_objects(b"\x1f\x8bnot really gzip", "fake.tgz")
    assert objects == [] and errors[0]["message"].startswith("not a readable .tar.gz archive")


def test_gzip_of_plain_yaml_is_read_as_one_file():
    objects, errors = read_objects(gzip.compress(yaml.safe_dump(deployment("a")).encode()), "a.yaml.gz")
    assert names(objects) == ["a"] and errors == []
    objects, errors = read_objects(gzip.compress(b"a: b\n  c: [\n"), "bad.yaml.gz")
    assert objects == [] and errors[0]["source"] == "bad.yaml.gz" and errors[0]["line"] == 2


def test_a_gzip_bomb_of_plain_text_stops_at_the_limit(monkeypatch):
    monkeypatch.setattr(reading, "MAX_TOTAL_BYTES", 100_000)
    bomb = gzip.compress(b"#" * 10_000_000)  # ~10 KB that inflate to 10 MB
    objects, errors = read_objects(bomb, "bomb.gz")
    assert objects == [] and errors[0]["message"] == "file is larger than 100,000 bytes once decompressed"
